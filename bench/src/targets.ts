import type { ClientId } from './clients.js';
import type { MeteringResult } from './metering.js';
import { type Metric, pairedRatio, type ScenarioResult } from './scenarios.js';

/** One target of issue 6, checked against one scenario's figures. */
export interface TargetCheck {
  readonly scenario: string;
  readonly target: string;
  readonly measured: string;
  readonly met: boolean;
}

const WITHIN = 1.1;

function figuresOf(result: ScenarioResult, client: ClientId) {
  const figures = result.clients.find((row) => row.client === client);
  if (!figures) throw new Error(`no figures for ${client} in ${result.id}`);
  return figures;
}

/**
 * The targets: our adapter within 1.10x of the `openai` SDK and faster than the
 * AI SDK, on time (the median latency sequentially, the wall time per call,
 * 1 / throughput, at concurrency 32) and on CPU per call, each compared round
 * by round; metering under 50 ms for 100,000 calls.
 */
export function checkTargets(results: ScenarioResult[], metering: MeteringResult): TargetCheck[] {
  const checks: TargetCheck[] = [];
  for (const result of results) {
    const adapter = figuresOf(result, 'adapter');
    const aiSdk = figuresOf(result, 'ai-sdk');
    const sequential = result.concurrency === 1;
    const timeName = sequential ? 'median latency' : 'wall time per call';
    // Time as "lower is better" ratios: throughput ratios are inverted.
    const timeRatio = (
      other: typeof adapter,
      metric: Metric = sequential ? 'medianMicros' : 'callsPerSecond',
    ) => (sequential ? pairedRatio(adapter, other, metric) : 1 / pairedRatio(adapter, other, metric));
    const versusOpenai = timeRatio(figuresOf(result, 'openai'));
    const versusAiSdk = timeRatio(aiSdk);
    const cpuVersusAiSdk = pairedRatio(adapter, aiSdk, 'cpuMicrosPerCall');
    checks.push(
      {
        scenario: result.label,
        target: `adapter ${timeName} <= 1.10x openai`,
        measured: `${versusOpenai.toFixed(3)}x`,
        met: versusOpenai <= WITHIN,
      },
      {
        scenario: result.label,
        target: 'adapter CPU per call <= 1.10x openai',
        measured: `${adapter.ratio.cpuMicrosPerCall.toFixed(3)}x`,
        met: adapter.ratio.cpuMicrosPerCall <= WITHIN,
      },
      {
        scenario: result.label,
        target: `adapter ${timeName} < AI SDK`,
        measured: `${versusAiSdk.toFixed(3)}x of AI SDK`,
        met: versusAiSdk < 1,
      },
      {
        scenario: result.label,
        target: 'adapter CPU per call < AI SDK',
        measured: `${cpuVersusAiSdk.toFixed(3)}x of AI SDK`,
        met: cpuVersusAiSdk < 1,
      },
    );
  }
  checks.push({
    scenario: `metering, ${metering.calls.toLocaleString('en-US')} calls`,
    target: `costUsd() checked after each call: < ${metering.targetMs} ms in total, O(1) per check`,
    measured: `${metering.checksMs.toFixed(2)} ms (${metering.checksOneEntryMs.toFixed(2)} ms with 1 entry)`,
    // O(1): 100,000 entries may not make the checks more than twice as slow as 1 entry (timer noise).
    met:
      metering.checksMs < metering.targetMs &&
      metering.checksMs <= Math.max(2 * metering.checksOneEntryMs, 1),
  });
  checks.push({
    scenario: `metering, ${metering.calls.toLocaleString('en-US')} calls`,
    target: `all of metering (recording, pricing, checks) < ${metering.targetMs} ms in total`,
    measured: `${metering.meteringMs.toFixed(1)} ms`,
    met: metering.meteringMs < metering.targetMs && metering.totalsAgree,
  });
  return checks;
}
