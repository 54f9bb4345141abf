import { NO_ROLE } from './call-meter.js';
import { type CallContext, GEN_AI, SWITCHBOARD } from './gen-ai-attributes.js';
import type { OtelAttributes, OtelMeterProvider, OtelRecorder } from './otel-api.js';
import type { TelemetryRecord } from './telemetry-record.js';
import type { UsageTokens } from './usage-tokens.js';

/** The name of the USD counter. */
export const COST_METRIC = 'switchboard.client.cost';

// Bucket boundaries the GenAI conventions advise for these two histograms.
const TOKEN_BUCKETS = [
  1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864,
];
const DURATION_BUCKETS = [
  0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92,
];

interface Instruments {
  readonly tokenUsage: OtelRecorder;
  readonly duration: OtelRecorder;
  readonly cost: OtelRecorder;
}

/**
 * The metric instruments, made from the current meter provider: the metrics API
 * has no proxy, so a provider registered after the observer was made is picked
 * up on the next call.
 */
export class CallInstruments {
  readonly #provider: () => OtelMeterProvider;
  #madeFrom: OtelMeterProvider | null = null;
  #instruments: Instruments | null = null;

  constructor(provider: () => OtelMeterProvider) {
    this.#provider = provider;
  }

  /** Records one call's token usage, duration and cost. */
  record(record: TelemetryRecord, tokens: UsageTokens, context: CallContext): void {
    const instruments = this.#current();
    if (instruments === null) return;
    const attributes = (extra?: OtelAttributes): OtelAttributes => {
      const made: OtelAttributes = {
        [GEN_AI.operationName]: 'chat',
        [GEN_AI.providerName]: context.providerName,
        [GEN_AI.requestModel]: record.model,
      };
      if (record.responseModel) made[GEN_AI.responseModel] = record.responseModel;
      return extra === undefined ? made : Object.assign(made, extra);
    };
    if (tokens.known) {
      instruments.tokenUsage.record?.(tokens.input, attributes({ [GEN_AI.tokenType]: 'input' }));
      instruments.tokenUsage.record?.(tokens.output, attributes({ [GEN_AI.tokenType]: 'output' }));
    }
    const failure = record.error ? { [GEN_AI.errorType]: record.error.kind } : undefined;
    instruments.duration.record?.(Math.max(record.durationMs, 0) / 1000, attributes(failure));
    if (typeof record.costUsd === 'number' && record.costUsd > 0) {
      instruments.cost.add?.(record.costUsd, {
        [SWITCHBOARD.role]: record.role ?? NO_ROLE,
        [GEN_AI.requestModel]: record.model,
        [SWITCHBOARD.route]: record.route ?? context.route,
      });
    }
  }

  // Null while the provider is the API's no-op one: then building attribute sets
  // would be most of the observer's cost, for nothing.
  #current(): Instruments | null {
    const provider = this.#provider();
    if (provider === this.#madeFrom) return this.#instruments;
    this.#madeFrom = provider;
    if (provider.constructor?.name === 'NoopMeterProvider') {
      this.#instruments = null;
      return null;
    }
    const meter = provider.getMeter('@switchboard/telemetry');
    this.#instruments = {
      tokenUsage: meter.createHistogram('gen_ai.client.token.usage', {
        description: 'Number of input and output tokens used.',
        unit: '{token}',
        advice: { explicitBucketBoundaries: TOKEN_BUCKETS },
      }),
      duration: meter.createHistogram('gen_ai.client.operation.duration', {
        description: 'GenAI operation duration.',
        unit: 's',
        advice: { explicitBucketBoundaries: DURATION_BUCKETS },
      }),
      cost: meter.createCounter(COST_METRIC, { description: 'What the calls cost, in USD.', unit: 'USD' }),
    };
    return this.#instruments;
  }
}
