import type { MachineInfo } from './machine.js';
import type { MeteringResult } from './metering.js';
import type { ScenarioResult } from './scenarios.js';
import type { TargetCheck } from './targets.js';

const integer = (value: number) => Math.round(value).toLocaleString('en-US');
const ratio = (value: number) => `${value.toFixed(2)}x`;

/** The results as markdown: machine, one table per scenario, the metering figures and the targets. */
export function markdownReport(
  machine: MachineInfo,
  results: ScenarioResult[],
  metering: MeteringResult,
  targets: TargetCheck[],
): string {
  const lines: string[] = [];
  lines.push(
    `Machine: ${machine.cpu}, ${machine.cores} cores, ${machine.memoryGb} GB, Node ${machine.node}, ${machine.os}`,
    '',
    'Figures: medians over all calls, CPU and calls/s over all rounds. "vs openai": the median over the',
    'rounds of the ratio to the `openai` SDK within the round (lower is better, except for calls/s).',
    '',
  );
  for (const result of results) {
    const chars = result.clients[0]?.averageContentChars ?? 0;
    lines.push(
      `### ${result.label} (${result.calls} calls x ${result.rounds} rounds per client; answers of ${integer(chars)} characters)`,
      '',
      '| client | median µs/call | vs openai | CPU µs/call | vs openai | calls/s | vs openai |',
      '|---|---:|---:|---:|---:|---:|---:|',
    );
    for (const row of result.clients) {
      lines.push(
        `| ${row.label} | ${integer(row.medianMicros)} | ${ratio(row.ratio.medianMicros)} | ${integer(row.cpuMicrosPerCall)} | ${ratio(row.ratio.cpuMicrosPerCall)} | ${integer(row.callsPerSecond)} | ${ratio(row.ratio.callsPerSecond)} |`,
      );
    }
    lines.push('');
  }
  lines.push(
    `### Cost metering: ${metering.calls.toLocaleString('en-US')} calls, costUsd() checked after each (median of ${metering.rounds} rounds)`,
    '',
    '| figure | CPU ms |',
    '|---|---:|',
    `| calls without metering (no usage, no cost model) | ${metering.unmeteredMs.toFixed(1)} |`,
    `| calls with usage recorded and priced, costUsd() checked after each | ${metering.meteredMs.toFixed(1)} |`,
    `| **metering in total** (the last minus the first, round by round) | **${metering.meteringMs.toFixed(1)}** |`,
    `| of which pricing each entry (100,000 endpoint.cost() calls; wall ms, best of 5 loops) | ${metering.pricingMs.toFixed(1)} |`,
    `| of which costUsd() checks (100,000 on an adapter holding 100,000 entries; wall ms, best of 5 loops) | ${metering.checksMs.toFixed(2)} |`,
    `| the same 100,000 checks on an adapter holding 1 entry (equal when O(1)) | ${metering.checksOneEntryMs.toFixed(2)} |`,
    `| the rest: keeping a frozen copy of each usage entry, and the GC work it adds | ${metering.recordingMs.toFixed(1)} |`,
    '',
    '### Targets',
    '',
    '| scenario | target | measured | met |',
    '|---|---|---:|---|',
  );
  for (const check of targets) {
    lines.push(
      `| ${check.scenario} | ${check.target} | ${check.measured} | ${check.met ? 'yes' : '**no**'} |`,
    );
  }
  return `${lines.join('\n')}\n`;
}
