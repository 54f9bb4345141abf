import type { OutputChunk } from '@switchboard/adapter';
import { boundedString } from './bounded-string.js';
import { BoundedValues } from './bounded-values.js';
import { NO_ROLE } from './call-meter.js';
import type { CostAmounts } from './cost-amounts.js';
import {
  type CallContext,
  COST_CURRENCY,
  firstChunkSeconds,
  GEN_AI,
  SWITCHBOARD,
} from './gen-ai-attributes.js';
import { INSTRUMENTATION_NAME, INSTRUMENTATION_VERSION, scopeOptions } from './instrumentation-scope.js';
import type { OtelAttributes, OtelCounter, OtelHistogram, OtelMeter, OtelMeterProvider } from './otel-api.js';
import type { ReportedTokens } from './reported-tokens.js';
import type { TelemetryRecord } from './telemetry-record.js';

/** The name of the USD cost counter (Switchboard's own; by role, requested model, route and currency). */
export const COST_METRIC = 'switchboard.client.cost';

/** How many distinct roles (and routes) one observer's metrics keep apart; later ones count as `other`. */
export const METRIC_VALUE_CAP = 64;

// Bucket advice of the GenAI conventions: token histograms (v1.41.0 docs/gen-ai/gen-ai-metrics.md,
// genai docs/gen-ai/gen-ai-token-metrics.md) and duration histograms (v1.41.0
// docs/gen-ai/gen-ai-metrics.md, genai docs/gen-ai/client-inference.md).
const TOKEN_BUCKETS: readonly number[] = Object.freeze([
  1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864,
]);
const DURATION_BUCKETS: readonly number[] = Object.freeze([
  0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92,
]);

/** Metric names of each convention mode. */
export const METRICS = {
  'v1.41.0': {
    duration: 'gen_ai.client.operation.duration',
    tokenUsage: 'gen_ai.client.token.usage',
    timeToFirstChunk: 'gen_ai.client.operation.time_to_first_chunk',
    timePerOutputChunk: 'gen_ai.client.operation.time_per_output_chunk',
  },
  gen_ai_latest_experimental: {
    duration: 'gen_ai.client.inference.duration',
    inputTokens: 'gen_ai.client.inference.usage.input_tokens',
    outputTokens: 'gen_ai.client.inference.usage.output_tokens',
    cacheReadTokens: 'gen_ai.client.inference.usage.cache_read.input_tokens',
    cacheWriteTokens: 'gen_ai.client.inference.usage.cache_write.input_tokens',
    reasoningTokens: 'gen_ai.client.inference.usage.reasoning.output_tokens',
    operationInputTokens: 'gen_ai.client.inference.operation.input_tokens',
    operationOutputTokens: 'gen_ai.client.inference.operation.output_tokens',
    // Renamed from v1.41.0's gen_ai.client.operation.time_to_first_chunk with the duration
    // (semantic-conventions-genai pull request 521, docs/gen-ai/non-normative/migration.md).
    timeToFirstChunk: 'gen_ai.client.inference.time_to_first_chunk',
    timePerOutputChunk: 'gen_ai.client.inference.time_per_output_chunk',
  },
} as const;

/** One call as the metrics see it. */
export interface MetricCall {
  readonly record: TelemetryRecord;
  readonly tokens: ReportedTokens;
  readonly cost: CostAmounts;
  /** The span's duration, in seconds. */
  readonly seconds: number;
}

type Recorder = (call: MetricCall, base: OtelAttributes) => void;

/**
 * The metric instruments, made from the current meter provider: the metrics API
 * has no proxy, so a provider registered after the observer was made is picked
 * up on the next call. Metric attributes are bounded: the requested model (cut
 * in length, never the reply's model id), roles and routes up to
 * {@link METRIC_VALUE_CAP} distinct values each, then `other`.
 */
export class CallInstruments {
  readonly #provider: () => OtelMeterProvider;
  readonly #context: CallContext;
  readonly #roles = new BoundedValues(SWITCHBOARD.role, METRIC_VALUE_CAP);
  readonly #routes = new BoundedValues(SWITCHBOARD.route, METRIC_VALUE_CAP);
  #madeFrom: OtelMeterProvider | null = null;
  #recorders: Recorder[] | null = null;
  #perChunk: OtelHistogram | null = null;

  constructor(provider: () => OtelMeterProvider, context: CallContext) {
    this.#provider = provider;
    this.#context = context;
  }

  /** False while the meter provider is the API's no-op one: nothing would be recorded. */
  get active(): boolean {
    return this.#current() !== null;
  }

  /** Records one call's duration, token usage and cost. */
  record(call: MetricCall): void {
    const recorders = this.#current();
    if (recorders === null) return;
    const base = this.#base(call.record.model);
    for (const recorder of recorders) recorder(call, base);
  }

  /**
   * Records one chunk of a streamed reply after its first: the time per output chunk, in seconds,
   * with the common attributes (the requested model's).
   */
  recordChunk(chunk: OutputChunk): void {
    if (this.#current() === null || this.#perChunk === null) return;
    const seconds = chunk.sinceLastChunkMs / 1000;
    if (!Number.isFinite(seconds) || seconds < 0) return;
    this.#perChunk.record(seconds, this.#base(chunk.model));
  }

  #base(model: string): OtelAttributes {
    const base: OtelAttributes = {
      [GEN_AI.operationName]: 'chat',
      [GEN_AI.providerName]: this.#context.providerName,
      [GEN_AI.requestModel]: boundedString(model),
    };
    const server = this.#context.server;
    if (server !== null) {
      base[GEN_AI.serverAddress] = server.address;
      base[GEN_AI.serverPort] = server.port;
    }
    return base;
  }

  // Null while the provider is the API's no-op one: then building attribute sets
  // would be most of the observer's cost, for nothing.
  #current(): Recorder[] | null {
    const provider = this.#provider();
    if (provider === this.#madeFrom) return this.#recorders;
    this.#madeFrom = provider;
    if (provider.constructor?.name === 'NoopMeterProvider') {
      this.#recorders = null;
      this.#perChunk = null;
      return null;
    }
    const conventions = this.#context.conventions;
    const meter = provider.getMeter(INSTRUMENTATION_NAME, INSTRUMENTATION_VERSION, scopeOptions(conventions));
    const usage = conventions === 'v1.41.0' ? v141Recorders(meter) : latestRecorders(meter);
    this.#recorders = [...usage, this.#costRecorder(meter)];
    this.#perChunk = meter.createHistogram(METRICS[conventions].timePerOutputChunk, {
      description:
        'Time per output chunk, recorded for each chunk received after the first one, measured as the time elapsed from the end of the previous chunk to the end of the current chunk.',
      unit: 's',
      advice: { explicitBucketBoundaries: [...DURATION_BUCKETS] },
    });
    return this.#recorders;
  }

  #costRecorder(meter: OtelMeter): Recorder {
    const cost = meter.createCounter(COST_METRIC, {
      description: "What the calls cost in Switchboard's ledger.",
      unit: COST_CURRENCY,
    });
    // The unit says USD; the proposal's currency attribute only in the latest mode, as on spans.
    const latest = this.#context.conventions === 'gen_ai_latest_experimental';
    return ({ record, cost: amounts }) => {
      if (amounts.ledger === null) return;
      cost.add(amounts.ledger, {
        [SWITCHBOARD.role]: this.#roles.of(record.role ?? NO_ROLE),
        [GEN_AI.requestModel]: boundedString(record.model),
        [SWITCHBOARD.route]: this.#routes.of(record.route ?? this.#context.route),
        ...(latest ? { [GEN_AI.costCurrency]: COST_CURRENCY } : {}),
      });
    };
  }
}

function durationRecorder(meter: OtelMeter, name: string, description: string): Recorder {
  const duration = meter.createHistogram(name, {
    description,
    unit: 's',
    advice: { explicitBucketBoundaries: [...DURATION_BUCKETS] },
  });
  return ({ record, seconds }, base) => {
    duration.record(seconds, record.error ? { ...base, [GEN_AI.errorType]: record.error.kind } : base);
  };
}

// Streamed calls only, as the conventions ask ("SHOULD NOT be reported otherwise").
function firstChunkRecorder(meter: OtelMeter, name: string): Recorder {
  const histogram = meter.createHistogram(name, {
    description:
      'Time to receive the first chunk, from when the client issues the generation request to when the first chunk is received in the response stream.',
    unit: 's',
    advice: { explicitBucketBoundaries: [...DURATION_BUCKETS] },
  });
  return ({ record }, base) => {
    const seconds = firstChunkSeconds(record);
    if (seconds !== null) histogram.record(seconds, base);
  };
}

// `ValueType.INT` of `@opentelemetry/api` (an optional peer, so not imported): token counts are whole,
// and a counter declared so leaves OTLP as `asInt`, not `asDouble`.
const INT = 0;

function tokenHistogram(meter: OtelMeter, name: string, description: string): OtelHistogram {
  return meter.createHistogram(name, {
    description,
    unit: '{token}',
    advice: { explicitBucketBoundaries: [...TOKEN_BUCKETS] },
    valueType: INT,
  });
}

// v1.41.0: docs/gen-ai/gen-ai-metrics.md of open-telemetry/semantic-conventions.
function v141Recorders(meter: OtelMeter): Recorder[] {
  const names = METRICS['v1.41.0'];
  const tokenUsage = tokenHistogram(meter, names.tokenUsage, 'Number of input and output tokens used.');
  return [
    durationRecorder(meter, names.duration, 'GenAI operation duration.'),
    firstChunkRecorder(meter, names.timeToFirstChunk),
    ({ tokens }, base) => {
      if (tokens.input !== null) tokenUsage.record(tokens.input, { ...base, [GEN_AI.tokenType]: 'input' });
      if (tokens.output !== null) tokenUsage.record(tokens.output, { ...base, [GEN_AI.tokenType]: 'output' });
    },
  ];
}

// The current conventions: docs/gen-ai/client-inference.md and docs/gen-ai/gen-ai-token-metrics.md
// of open-telemetry/semantic-conventions-genai.
function latestRecorders(meter: OtelMeter): Recorder[] {
  const names = METRICS.gen_ai_latest_experimental;
  const counter = (name: string, description: string): OtelCounter =>
    meter.createCounter(name, { description, unit: '{token}', valueType: INT });
  const counters: [keyof ReportedTokens, OtelCounter][] = [
    [
      'input',
      counter(names.inputTokens, 'The number of input (prompt) tokens used, including cached tokens.'),
    ],
    [
      'output',
      counter(
        names.outputTokens,
        'The number of output (completion) tokens used, including reasoning tokens.',
      ),
    ],
    [
      'cacheRead',
      counter(names.cacheReadTokens, 'The number of input tokens served from a provider-managed cache.'),
    ],
    [
      'cacheWrite',
      counter(names.cacheWriteTokens, 'The number of input tokens written to a provider-managed cache.'),
    ],
    ['reasoning', counter(names.reasoningTokens, 'The number of output tokens used for reasoning.')],
  ];
  const operationInput = tokenHistogram(
    meter,
    names.operationInputTokens,
    'The number of input (prompt) tokens used per inference operation.',
  );
  const operationOutput = tokenHistogram(
    meter,
    names.operationOutputTokens,
    'The number of output (completion) tokens used per inference operation.',
  );
  return [
    durationRecorder(meter, names.duration, 'GenAI inference operation duration.'),
    firstChunkRecorder(meter, names.timeToFirstChunk),
    // Every call, failed ones too: a count the provider did not report (no reply, no usage, or no
    // such field) is recorded as 0, as the conventions ask, so the counters and histograms count
    // operations, not only successful ones.
    ({ record, tokens }, base) => {
      // The provider does not break usage down by modality: the conventions say `unknown` then.
      const byModality = { ...base, [GEN_AI.tokenModality]: 'unknown' };
      for (const [field, instrument] of counters) instrument.add(tokens[field] ?? 0, byModality);
      const perOperation = record.error ? { ...base, [GEN_AI.errorType]: record.error.kind } : base;
      operationInput.record(tokens.input ?? 0, perOperation);
      operationOutput.record(tokens.output ?? 0, perOperation);
    },
  ];
}
