import { metrics, trace } from '@opentelemetry/api';
import { JsonMetricsSerializer, JsonTraceSerializer } from '@opentelemetry/otlp-transformer';
import {
  AggregationTemporality,
  DataPointType,
  type Histogram,
  InstrumentType,
  MeterProvider,
  type MetricData,
  MetricReader,
} from '@opentelemetry/sdk-metrics';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import {
  type CallRecord,
  ChatAdapter,
  ChatError,
  type CompleteRequest,
  type CostModel,
  OpenAITransport,
  type OutputChunk,
} from '@switchboard/adapter';
import { type Emulator, type FaultRule, startEmulator } from '@switchboard/emulator';
import { costOf, PRICES_VERSION, priceOf } from '@switchboard/prices';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { PRIMARY_JUDGE_CALL } from './__fixtures__/call-records.js';
import type { OtelConventions } from './otel-conventions.js';
import { otelObserver } from './otel-observer.js';

// The observer's spans and metrics, captured with the real OpenTelemetry SDK
// (in-memory span exporter, a metric reader collected on demand), for real
// ChatAdapter calls over loopback HTTP to the emulator, whose replies are given
// whole (so every value is known), in both convention modes.

// Where each expected name comes from. CORE: open-telemetry/semantic-conventions at
// tag v1.41.0; GENAI: open-telemetry/semantic-conventions-genai (main); PROPOSAL: an
// open pull request of the latter, not yet a convention; OPENINFERENCE: Arize's conventions, whose
// cost attribute Langfuse reads too; OURS: Switchboard's own.
const CORE = 'semantic-conventions@v1.41.0';
const GENAI = 'semantic-conventions-genai';
const PROPOSAL = 'semantic-conventions-genai pull request 443 (proposal), changelog.d/443.enhancement.md';
const OURS = "Switchboard's own";
const OPENINFERENCE = 'openinference spec/semantic_conventions.md (llm.cost.total)';
const SPANS = `${CORE} docs/gen-ai/gen-ai-spans.md; ${GENAI} docs/gen-ai/client-inference.md`;
const SPANS_AND_METRICS = `${CORE} docs/gen-ai/gen-ai-spans.md and gen-ai-metrics.md; ${GENAI} docs/gen-ai/client-inference.md and gen-ai-token-metrics.md`;
const CORE_METRICS = `${CORE} docs/gen-ai/gen-ai-metrics.md, model/gen-ai/metrics.yaml`;
const TOKEN_METRICS = `${GENAI} docs/gen-ai/gen-ai-token-metrics.md, model/gen-ai/token-metrics.yaml`;
const INFERENCE_METRICS = `${GENAI} docs/gen-ai/client-inference.md, docs/gen-ai/non-normative/migration.md`;

type AttributeType = 'string' | 'int' | 'double' | 'boolean' | 'string[]';
type Mode = OtelConventions | 'both';

interface AttributeRow {
  readonly kind: 'attribute';
  readonly type: AttributeType;
  readonly modes: Mode;
  readonly source: string;
}

interface MetricRow {
  readonly kind: 'metric';
  readonly instrument: InstrumentType;
  readonly unit: string;
  readonly buckets: readonly number[] | null;
  readonly modes: Mode;
  readonly source: string;
}

type Row = AttributeRow | MetricRow;

const attribute = (type: AttributeType, modes: Mode, source: string): AttributeRow => ({
  kind: 'attribute',
  type,
  modes,
  source,
});
const metric = (
  instrument: 'histogram' | 'counter',
  unit: string,
  buckets: readonly number[] | null,
  modes: Mode,
  source: string,
): MetricRow => ({
  kind: 'metric',
  instrument: instrument === 'histogram' ? InstrumentType.HISTOGRAM : InstrumentType.COUNTER,
  unit,
  buckets,
  modes,
  source,
});

const TOKEN_BUCKETS = [
  1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864,
];
const SECONDS_BUCKETS = [
  0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92,
];

/**
 * Every name the observer emits, in one table: span and metric-point attributes (value type) and
 * metrics (instrument, unit, bucket advice), the convention modes each belongs to, and the file it comes from.
 */
const NAMES: Record<string, Row> = {
  'gen_ai.operation.name': attribute('string', 'both', SPANS),
  'gen_ai.provider.name': attribute('string', 'both', SPANS),
  'gen_ai.request.model': attribute('string', 'both', SPANS),
  'gen_ai.request.max_tokens': attribute('int', 'both', SPANS),
  'gen_ai.request.temperature': attribute('double', 'both', SPANS),
  'gen_ai.output.type': attribute('string', 'both', SPANS),
  'gen_ai.request.stream': attribute('boolean', 'both', SPANS),
  'gen_ai.response.time_to_first_chunk': attribute('double', 'both', SPANS),
  'gen_ai.response.model': attribute('string', 'both', SPANS),
  'gen_ai.response.id': attribute('string', 'both', SPANS),
  'gen_ai.response.finish_reasons': attribute('string[]', 'both', SPANS),
  'gen_ai.usage.input_tokens': attribute('int', 'both', SPANS),
  'gen_ai.usage.output_tokens': attribute('int', 'both', SPANS),
  'gen_ai.usage.cache_read.input_tokens': attribute('int', 'both', SPANS),
  'gen_ai.usage.cache_creation.input_tokens': attribute(
    'int',
    'v1.41.0',
    `${CORE} docs/gen-ai/gen-ai-spans.md`,
  ),
  'gen_ai.usage.cache_write.input_tokens': attribute(
    'int',
    'gen_ai_latest_experimental',
    `${GENAI} docs/gen-ai/client-inference.md (renamed in pull request 440, docs/gen-ai/non-normative/migration.md)`,
  ),
  'gen_ai.usage.reasoning.output_tokens': attribute('int', 'both', SPANS),
  'server.address': attribute('string', 'both', SPANS_AND_METRICS),
  'server.port': attribute('int', 'both', SPANS_AND_METRICS),
  'error.type': attribute(
    'string',
    'both',
    `${CORE} docs/gen-ai/gen-ai-spans.md and gen-ai-metrics.md; ${GENAI} docs/gen-ai/client-inference.md`,
  ),
  'gen_ai.token.type': attribute(
    'string',
    'v1.41.0',
    `${CORE} docs/gen-ai/gen-ai-metrics.md (metric gen_ai.client.token.usage)`,
  ),
  'gen_ai.token.modality': attribute('string', 'gen_ai_latest_experimental', TOKEN_METRICS),
  // A proposal, not a released convention: the cost counter's attribute in the latest mode only.
  'gen_ai.usage.cost.currency': attribute('string', 'gen_ai_latest_experimental', PROPOSAL),
  // The call's cost on its span, in both modes, under a name no backend reads as a token count.
  'llm.cost.total': attribute('double', 'both', OPENINFERENCE),
  'switchboard.route': attribute('string', 'both', OURS),
  'switchboard.role': attribute('string', 'both', OURS),
  'switchboard.attempts': attribute('int', 'both', OURS),
  'switchboard.price.version': attribute('string', 'both', OURS),
  'switchboard.price.source': attribute('string', 'both', OURS),
  'switchboard.price.band': attribute('string', 'both', OURS),
  'switchboard.cost.amount': attribute('double', 'both', OURS),
  'switchboard.price.checked_at': attribute('string', 'both', OURS),
  'switchboard.cost.provider_amount': attribute('double', 'both', OURS),
  'switchboard.cost.drift': attribute('double', 'both', OURS),
  'gen_ai.client.operation.duration': metric('histogram', 's', SECONDS_BUCKETS, 'v1.41.0', CORE_METRICS),
  'gen_ai.client.token.usage': metric('histogram', '{token}', TOKEN_BUCKETS, 'v1.41.0', CORE_METRICS),
  'gen_ai.client.operation.time_to_first_chunk': metric(
    'histogram',
    's',
    SECONDS_BUCKETS,
    'v1.41.0',
    CORE_METRICS,
  ),
  'gen_ai.client.operation.time_per_output_chunk': metric(
    'histogram',
    's',
    SECONDS_BUCKETS,
    'v1.41.0',
    CORE_METRICS,
  ),
  'switchboard.client.cost': metric('counter', 'USD', null, 'both', OURS),
  'gen_ai.client.inference.time_per_output_chunk': metric(
    'histogram',
    's',
    SECONDS_BUCKETS,
    'gen_ai_latest_experimental',
    INFERENCE_METRICS,
  ),
  'gen_ai.client.inference.duration': metric(
    'histogram',
    's',
    SECONDS_BUCKETS,
    'gen_ai_latest_experimental',
    INFERENCE_METRICS,
  ),
  'gen_ai.client.inference.time_to_first_chunk': metric(
    'histogram',
    's',
    SECONDS_BUCKETS,
    'gen_ai_latest_experimental',
    INFERENCE_METRICS,
  ),
  'gen_ai.client.inference.usage.input_tokens': metric(
    'counter',
    '{token}',
    null,
    'gen_ai_latest_experimental',
    TOKEN_METRICS,
  ),
  'gen_ai.client.inference.usage.output_tokens': metric(
    'counter',
    '{token}',
    null,
    'gen_ai_latest_experimental',
    TOKEN_METRICS,
  ),
  'gen_ai.client.inference.usage.cache_read.input_tokens': metric(
    'counter',
    '{token}',
    null,
    'gen_ai_latest_experimental',
    TOKEN_METRICS,
  ),
  'gen_ai.client.inference.usage.cache_write.input_tokens': metric(
    'counter',
    '{token}',
    null,
    'gen_ai_latest_experimental',
    TOKEN_METRICS,
  ),
  'gen_ai.client.inference.usage.reasoning.output_tokens': metric(
    'counter',
    '{token}',
    null,
    'gen_ai_latest_experimental',
    TOKEN_METRICS,
  ),
  'gen_ai.client.inference.operation.input_tokens': metric(
    'histogram',
    '{token}',
    TOKEN_BUCKETS,
    'gen_ai_latest_experimental',
    TOKEN_METRICS,
  ),
  'gen_ai.client.inference.operation.output_tokens': metric(
    'histogram',
    '{token}',
    TOKEN_BUCKETS,
    'gen_ai_latest_experimental',
    TOKEN_METRICS,
  ),
};

/** The metrics of one mode, from the table. */
function metricsOf(mode: OtelConventions): Map<string, MetricRow> {
  const rows = Object.entries(NAMES).filter(
    (entry): entry is [string, MetricRow] =>
      entry[1].kind === 'metric' && (entry[1].modes === 'both' || entry[1].modes === mode),
  );
  return new Map(rows);
}

// The schema URL of each mode: v1.41.0's, and the development schema of semantic-conventions-genai
// (its model/manifest.yaml).
const SCHEMA_URLS: Record<OtelConventions, string> = {
  'v1.41.0': 'https://opentelemetry.io/schemas/1.41.0',
  gen_ai_latest_experimental: 'https://opentelemetry.io/schemas/gen-ai-dev/1.42.0-dev',
};
const PACKAGE_VERSION = (await import('../package.json', { with: { type: 'json' } })).default.version;
const KEY = 'capture-test-key-51d0';

/** Prices from the shipped table; the provider's own `usage.cost` kept beside it. */
const tablePrices: CostModel = {
  cost: () => null,
  priceCall: ({ model, usage }) => {
    const costUsd = costOf(priceOf(model), usage);
    return {
      costUsd,
      pricedAs: costUsd === null ? null : model,
      priceSource: costUsd === null ? null : 'table',
      // A dated tariff's band, as a price book reports it.
      tariff: costUsd === null ? null : { entry: '2026-09-01', band: 'off-peak' },
      providerCostUsd: typeof usage.cost === 'number' ? usage.cost : null,
      priceVersion: PRICES_VERSION,
    };
  },
};

/** The exact decimal of a USD amount: whole nano-dollars / 1e9. */
const exact = (usd: number | null): number => Math.round((usd ?? Number.NaN) * 1e9) / 1e9;

/** The span attributes of a reply made by {@link chatReply}. */
function responseAttributes(id: string, model: string, finishReason = 'stop'): Record<string, unknown> {
  return {
    'gen_ai.response.model': model,
    'gen_ai.response.id': id,
    'gen_ai.response.finish_reasons': [finishReason],
  };
}

/** The attributes are exactly `expected`, and each is a name `mode` defines, of the type it defines. */
function expectAttributes(
  attributes: Record<string, unknown>,
  mode: OtelConventions,
  expected: Record<string, unknown>,
): void {
  expect(attributes).toEqual(expected);
  checkTypes(attributes, mode);
}

/** A one-time 200 reply of `model` with `usage`; its content is `content` and its finish reason `finishReason`. */
function chatReply(
  id: string,
  model: string,
  usage: Record<string, unknown>,
  { content = 'ok', finishReason = 'stop' }: { content?: string; finishReason?: string } = {},
): FaultRule {
  const body = {
    id,
    object: 'chat.completion',
    created: 1_790_000_000,
    model,
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content },
        finish_reason: finishReason,
      },
    ],
    usage,
  };
  return {
    path: '/chat/completions',
    times: 1,
    status: 200,
    body: JSON.stringify(body),
    contentType: 'application/json',
  };
}

class CollectingReader extends MetricReader {
  protected override async onShutdown(): Promise<void> {}
  protected override async onForceFlush(): Promise<void> {}
}

interface Captured {
  readonly record: CallRecord;
  readonly span: ReadableSpan;
  /** The chunks after the first of a streamed reply, as the adapter told its observers. */
  readonly chunks: readonly OutputChunk[];
}

let primary: Emulator;
let gateway: Emulator;
let exporter: InMemorySpanExporter;
let reader: CollectingReader;

beforeAll(async () => {
  primary = await startEmulator({ key: KEY });
  gateway = await startEmulator({ key: KEY, flavor: 'gateway' });
});
afterAll(async () => {
  await Promise.all([primary?.close(), gateway?.close()]);
});
beforeEach(() => {
  primary.reset();
  gateway.reset();
  exporter = new InMemorySpanExporter();
  trace.setGlobalTracerProvider(
    new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }),
  );
  reader = new CollectingReader({ aggregationTemporalitySelector: () => AggregationTemporality.CUMULATIVE });
  metrics.setGlobalMeterProvider(new MeterProvider({ readers: [reader] }));
});
afterEach(() => {
  trace.disable();
  metrics.disable();
});

function seconds(span: ReadableSpan): number {
  const [s, ns] = span.duration;
  return (s * 1e9 + ns) / 1e9; // whole nanoseconds, as the metric records them
}

/** One OTLP `AnyValue` as the JSON encoding writes it: `{ intValue }`, `{ doubleValue }`, ... */
type WireValue = Record<string, unknown>;

/** Each attribute of `attributes` (OTLP `KeyValue`s) mapped to the `AnyValue` field it was sent as. */
function wireTypes(attributes: ReadonlyArray<{ key: string; value: WireValue }>): Record<string, string> {
  return Object.fromEntries(attributes.map(({ key, value }) => [key, Object.keys(value)[0] ?? '']));
}

/**
 * The OTLP field an attribute of the table's `type` is sent as. A double that is a whole number
 * (temperature 0, a cost of exactly $1) leaves as `intValue`: the JS SDK's OTLP transformer picks
 * the field by `Number.isInteger`, and the API has no way to mark a number as a double.
 */
function expectedWireType(type: AttributeType, value: unknown): string {
  if (type === 'int') return 'intValue';
  if (type === 'string') return 'stringValue';
  if (type === 'boolean') return 'boolValue';
  if (type === 'string[]') return 'arrayValue';
  return Number.isInteger(value) ? 'intValue' : 'doubleValue';
}

function checkTypes(attributes: Record<string, unknown>, mode: OtelConventions): void {
  for (const [name, value] of Object.entries(attributes)) {
    const row = NAMES[name];
    expect(row?.kind, `${name} is an attribute in the table of expected names`).toBe('attribute');
    const { type, modes } = row as AttributeRow;
    expect(modes === 'both' || modes === mode, `${name} belongs to ${mode}`).toBe(true);
    if (type === 'string') expect(typeof value, name).toBe('string');
    if (type === 'double') expect(typeof value, name).toBe('number');
    if (type === 'int') expect(Number.isSafeInteger(value), name).toBe(true);
    if (type === 'boolean') expect(typeof value, name).toBe('boolean');
    if (type === 'string[]')
      expect(Array.isArray(value) && value.every((item) => typeof item === 'string'), name).toBe(true);
  }
}

describe.each<OtelConventions>(['v1.41.0', 'gen_ai_latest_experimental'])(
  'otelObserver, conventions %s',
  (mode) => {
    const latest = mode === 'gen_ai_latest_experimental';
    const cacheWrite = latest
      ? 'gen_ai.usage.cache_write.input_tokens'
      : 'gen_ai.usage.cache_creation.input_tokens';

    async function call(
      emulator: Emulator,
      provider: 'primary' | 'gateway',
      request: CompleteRequest,
      options: { bounded?: number; role?: string; fault?: FaultRule; stream?: boolean },
    ): Promise<Captured> {
      const observer = await otelObserver({
        endpoint: { provider, baseUrl: emulator.url },
        conventions: mode,
      });
      const transport = new OpenAITransport({ apiKey: KEY, baseUrl: emulator.url, maxAttempts: 1 });
      let adapter = new ChatAdapter(transport, { endpoint: tablePrices, observers: [observer] });
      if (options.role) adapter = adapter.forRole(options.role);
      if (options.bounded) adapter = adapter.bounded(options.bounded);
      if (options.fault) emulator.setFaults([options.fault]);
      const records: CallRecord[] = [];
      const chunks: OutputChunk[] = [];
      adapter.observe({
        afterCall: (record) => records.push(record),
        afterChunk: (chunk) => chunks.push(chunk),
      });
      const reply = options.stream ? adapter.stream(request).response : adapter.complete(request);
      await reply.catch((error: unknown) => {
        if (!ChatError.isInstance(error)) throw error;
      });
      const spans = exporter.getFinishedSpans();
      expect(records).toHaveLength(1);
      expect(spans).toHaveLength(1);
      exporter.reset();
      return { record: records[0] as CallRecord, span: spans[0] as ReadableSpan, chunks };
    }

    const server = (emulator: Emulator) => ({
      'server.address': '127.0.0.1',
      'server.port': Number(new URL(emulator.url).port),
    });

    /** What every metric point of a call to `emulator` carries: operation, provider, requested model, server. */
    const metricAttributes = (emulator: Emulator, provider: 'primary' | 'gateway', model: string) => ({
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': `switchboard.${provider}`,
      'gen_ai.request.model': model,
      ...server(emulator),
    });

    /** What every span of a call to `emulator` carries: the metric attributes, route and attempts. */
    const callAttributes = (emulator: Emulator, provider: 'primary' | 'gateway', model: string) => ({
      ...metricAttributes(emulator, provider, model),
      'switchboard.route': `${provider} ${emulator.url}`,
      'switchboard.attempts': 1,
    });

    /** The span's cost: what the provider billed when its reply said, else the ledger's figure; both modes. */
    const spanCost = (amount: number) => ({ 'llm.cost.total': amount });

    /** What a failed call reports as its finish reasons: `["error"]` in the latest mode, none in v1.41.0. */
    const failedFinish = latest ? { 'gen_ai.response.finish_reasons': ['error'] } : {};

    /** The cost attributes of a call the table priced, whose reply carried no cost of its own. */
    const localCost = (amount: number) => ({
      ...spanCost(amount),
      'switchboard.cost.amount': amount,
      'switchboard.price.source': 'table',
      'switchboard.price.version': PRICES_VERSION,
      'switchboard.price.band': 'off-peak',
    });

    it('a primary-style reply: every attribute, the span name, kind, status and scope', async () => {
      const usage = {
        prompt_tokens: 1200,
        completion_tokens: 300,
        total_tokens: 1500,
        prompt_cache_hit_tokens: 1024,
        prompt_cache_miss_tokens: 176,
        completion_tokens_details: { reasoning_tokens: 120 },
      };
      const fault = chatReply('chatcmpl-7f3a', 'primary-flash', usage, { content: 'Step 3.' });
      const { span } = await call(
        primary,
        'primary',
        {
          model: 'primary-flash',
          messages: [{ role: 'user', content: 'Which step failed?' }],
          temperature: 0.2,
        },
        { role: 'judge', fault },
      );
      const local = exact(costOf(priceOf('primary-flash'), usage));
      expect(local).toBe(0.000487776);
      expect(span.name).toBe('chat primary-flash');
      expect(span.kind).toBe(2); // CLIENT
      expect(span.status).toEqual({ code: 0 }); // UNSET
      expect(span.instrumentationScope).toEqual({
        name: '@switchboard/telemetry',
        version: PACKAGE_VERSION,
        schemaUrl: SCHEMA_URLS[mode],
      });
      expectAttributes(span.attributes, mode, {
        ...callAttributes(primary, 'primary', 'primary-flash'),
        'gen_ai.request.temperature': 0.2,
        ...responseAttributes('chatcmpl-7f3a', 'primary-flash'),
        'gen_ai.usage.input_tokens': 1200,
        'gen_ai.usage.output_tokens': 300,
        'gen_ai.usage.cache_read.input_tokens': 1024,
        'gen_ai.usage.reasoning.output_tokens': 120,
        ...localCost(local),
        'switchboard.route': `primary ${primary.url}`,
        'switchboard.role': 'judge',
        'switchboard.attempts': 1,
      });
    });

    it("a gateway reply with the provider's cost and cache writes: source provider, the table's figure under switchboard.*", async () => {
      const usage = {
        prompt_tokens: 2000,
        completion_tokens: 500,
        total_tokens: 2500,
        prompt_tokens_details: { cached_tokens: 1500, cache_write_tokens: 400 },
        cost: 0.0012,
      };
      const fault = chatReply('gen-91c2', 'primary-v4-pro-0815', usage, { content: '[]' });
      const { span } = await call(
        gateway,
        'gateway',
        { model: 'primary-v4-pro', messages: [{ role: 'user', content: 'Findings?' }] },
        { role: 'detector', fault },
      );
      const table = exact(costOf(priceOf('primary-v4-pro'), usage));
      expect(table).not.toBe(0.0012);
      expectAttributes(span.attributes, mode, {
        ...callAttributes(gateway, 'gateway', 'primary-v4-pro'),
        'gen_ai.request.temperature': 0,
        ...responseAttributes('gen-91c2', 'primary-v4-pro-0815'),
        'gen_ai.usage.input_tokens': 2000,
        'gen_ai.usage.output_tokens': 500,
        'gen_ai.usage.cache_read.input_tokens': 1500,
        [cacheWrite]: 400,
        ...spanCost(0.0012),
        'switchboard.cost.amount': table,
        // The table's figure reconciled with the provider's: the drift the meter and the report show.
        'switchboard.cost.provider_amount': 0.0012,
        'switchboard.cost.drift': (Math.round(table * 1e9) - 1_200_000) / 1_200_000,
        'switchboard.price.source': 'table',
        'switchboard.price.version': PRICES_VERSION,
        'switchboard.price.band': 'off-peak',
        'switchboard.role': 'detector',
      });
    });

    it('a JSON-mode call: gen_ai.output.type json, and no count the provider did not report', async () => {
      const usage = { prompt_tokens: 50, completion_tokens: 7, total_tokens: 57 };
      const fault = chatReply('chatcmpl-j1', 'primary-v4-flash', usage, { content: '{"a":1}' });
      const { span } = await call(
        primary,
        'primary',
        { model: 'primary-v4-flash', messages: [{ role: 'user', content: 'JSON please' }], jsonObject: true },
        { fault },
      );
      const local = exact(costOf(priceOf('primary-v4-flash'), usage));
      expectAttributes(span.attributes, mode, {
        ...callAttributes(primary, 'primary', 'primary-v4-flash'),
        'gen_ai.output.type': 'json',
        'gen_ai.request.temperature': 0,
        ...responseAttributes('chatcmpl-j1', 'primary-v4-flash'),
        'gen_ai.usage.input_tokens': 50,
        'gen_ai.usage.output_tokens': 7,
        ...localCost(local),
      });
    });

    it('a bounded call: gen_ai.request.max_tokens is the cap sent; a reported 0 is sent as 0', async () => {
      const usage = {
        prompt_tokens: 80,
        completion_tokens: 64,
        total_tokens: 144,
        prompt_cache_hit_tokens: 0,
        prompt_cache_miss_tokens: 80,
      };
      const fault = chatReply('chatcmpl-b1', 'primary-v4.1-flash', usage, {
        content: 'cut',
        finishReason: 'length',
      });
      const { span } = await call(
        primary,
        'primary',
        { model: 'primary-v4.1-flash', messages: [{ role: 'user', content: 'Short' }], temperature: 0.5 },
        { bounded: 64, fault },
      );
      const local = exact(costOf(priceOf('primary-v4.1-flash'), usage));
      expectAttributes(span.attributes, mode, {
        ...callAttributes(primary, 'primary', 'primary-v4.1-flash'),
        'gen_ai.request.max_tokens': 64,
        'gen_ai.request.temperature': 0.5,
        ...responseAttributes('chatcmpl-b1', 'primary-v4.1-flash', 'length'),
        'gen_ai.usage.input_tokens': 80,
        'gen_ai.usage.output_tokens': 64,
        'gen_ai.usage.cache_read.input_tokens': 0,
        ...localCost(local),
      });
    });

    it('a streamed call: gen_ai.request.stream and its time to first chunk; the same call not streamed has neither', async () => {
      const request: CompleteRequest = {
        model: 'primary-flash',
        messages: [{ role: 'user', content: 'Stream the verdict.' }],
      };
      const streamed = await call(primary, 'primary', request, { stream: true });
      primary.reset(); // the same reply again: no cache hit from the first call
      const plain = await call(primary, 'primary', request, {});
      expect(streamed.record.streamed).toBe(true);
      const firstDeltaMs = streamed.record.firstDeltaMs as number;
      expect(firstDeltaMs).toBeGreaterThan(0);
      const { attributes } = streamed.span;
      expect(attributes['gen_ai.request.stream']).toBe(true);
      expect(attributes['gen_ai.response.time_to_first_chunk']).toBe(firstDeltaMs / 1000);
      expect(attributes['gen_ai.response.time_to_first_chunk']).toBeLessThanOrEqual(seconds(streamed.span));
      checkTypes(attributes, mode);

      expect(plain.record.streamed).toBe(false);
      expect(plain.span.attributes).not.toHaveProperty('gen_ai.request.stream');
      expect(plain.span.attributes).not.toHaveProperty('gen_ai.response.time_to_first_chunk');
      // Everything else is what the plain call of the same reply reports (its id aside).
      const {
        'gen_ai.request.stream': _stream,
        'gen_ai.response.time_to_first_chunk': _first,
        'gen_ai.response.id': streamedId,
        ...rest
      } = attributes;
      const { 'gen_ai.response.id': plainId, ...plainRest } = plain.span.attributes;
      expect(typeof streamedId).toBe('string');
      expect(typeof plainId).toBe('string');
      expect(rest).toEqual(plainRest);
      expect(rest['gen_ai.usage.output_tokens']).toBeGreaterThan(0);
    });

    it('a stream cut after output: streamed, its time to first chunk, error.type, the estimate only under switchboard.*, no HTTP 200 status; one cut before output has no first chunk', async () => {
      const request: CompleteRequest = {
        model: 'primary-flash',
        messages: [{ role: 'user', content: 'Stream, then break.' }],
      };
      const cut = await call(primary, 'primary', request, {
        stream: true,
        fault: { path: '/chat/completions', times: 1, stream: { cutAfterEvents: 4 } },
      });
      expect(cut.record.priceSource).toBe('estimate');
      const estimate = exact(cut.record.costUsd);
      expect(estimate).toBeGreaterThan(0);
      // The stream's reply status was 200; the cut is the error: an error status without `HTTP 200`.
      expect(cut.record.error?.status).toBe(200);
      expect(cut.span.status).toEqual({ code: 2 });
      expectAttributes(cut.span.attributes, mode, {
        ...callAttributes(primary, 'primary', 'primary-flash'),
        'gen_ai.request.temperature': 0,
        'gen_ai.request.stream': true,
        'gen_ai.response.time_to_first_chunk': (cut.record.firstDeltaMs as number) / 1000,
        'gen_ai.response.model': 'primary-flash',
        'gen_ai.response.id': cut.record.responseId,
        ...failedFinish,
        // An estimate is never a span's llm.cost.total, in either mode.
        'switchboard.cost.amount': estimate,
        // Estimated at the prices that price the call: the same version and band.
        'switchboard.price.source': 'estimate',
        'switchboard.price.version': PRICES_VERSION,
        'switchboard.price.band': 'off-peak',
        'error.type': 'connection',
      });

      const refused = await call(primary, 'primary', request, {
        stream: true,
        fault: { path: '/chat/completions', times: 1, status: 503 },
      });
      expect(refused.record.firstDeltaMs).toBeNull();
      expect(refused.span.attributes).toEqual({
        ...callAttributes(primary, 'primary', 'primary-flash'),
        'gen_ai.request.temperature': 0,
        'gen_ai.request.stream': true,
        ...failedFinish,
        'error.type': 'server',
      });
      expect(refused.span.status).toEqual({ code: 2, message: 'HTTP 503' });
    });

    it('a 429: error.type rate_limited, an error status whose description does not repeat it, no usage or cost', async () => {
      const { span } = await call(
        primary,
        'primary',
        { model: 'primary-flash', messages: [{ role: 'user', content: 'Again?' }] },
        { fault: { path: '/chat/completions', status: 429, times: 1 } },
      );
      expect(span.status).toEqual({ code: 2, message: 'HTTP 429' });
      expectAttributes(span.attributes, mode, {
        ...callAttributes(primary, 'primary', 'primary-flash'),
        'gen_ai.request.temperature': 0,
        ...failedFinish,
        'error.type': 'rate_limited',
      });
    });

    it('a 401 and a timeout: error.type, and in the latest mode the finish reason error where none arrived', async () => {
      const refused = await call(
        primary,
        'primary',
        { model: 'primary-flash', messages: [{ role: 'user', content: 'Who am I?' }] },
        { fault: { path: '/chat/completions', status: 401, times: 1 } },
      );
      expect(refused.span.status).toEqual({ code: 2, message: 'HTTP 401' });
      expectAttributes(refused.span.attributes, mode, {
        ...callAttributes(primary, 'primary', 'primary-flash'),
        'gen_ai.request.temperature': 0,
        ...failedFinish,
        'error.type': 'auth',
      });
      const slow = await call(
        primary,
        'primary',
        { model: 'primary-flash', messages: [{ role: 'user', content: 'Slowly.' }], timeoutSeconds: 0.05 },
        { fault: { path: '/chat/completions', delayMs: 1_000, times: 1 } },
      );
      expect(slow.span.status).toEqual({ code: 2 });
      expectAttributes(slow.span.attributes, mode, {
        ...callAttributes(primary, 'primary', 'primary-flash'),
        'gen_ai.request.temperature': 0,
        ...failedFinish,
        'error.type': 'timeout',
      });
    });

    it('on the OTLP wire: each attribute in the field of its type, except a whole double, which leaves as intValue', async () => {
      const usage = { prompt_tokens: 20, completion_tokens: 4, total_tokens: 24, cost: 1 };
      const request = (temperature: number): CompleteRequest => ({
        model: 'primary-flash',
        messages: [{ role: 'user', content: `At ${temperature}.` }],
        temperature,
      });
      const whole = await call(gateway, 'gateway', request(0), {
        role: 'judge',
        fault: chatReply('gen-w1', 'primary-flash', usage),
      });
      const fractional = await call(gateway, 'gateway', request(0.2), {
        role: 'judge',
        fault: chatReply('gen-w2', 'primary-flash', { ...usage, cost: 0.25 }),
      });
      const sent = JSON.parse(
        new TextDecoder().decode(JsonTraceSerializer.serializeRequest([whole.span, fractional.span])),
      ) as {
        resourceSpans: { scopeSpans: { spans: { attributes: { key: string; value: WireValue }[] }[] }[] }[];
      };
      const spans = sent.resourceSpans.flatMap((resource) =>
        resource.scopeSpans.flatMap((scope) => scope.spans),
      );
      expect(spans).toHaveLength(2);
      for (const [index, captured] of [whole, fractional].entries()) {
        const wire = wireTypes(spans[index]?.attributes ?? []);
        expect(Object.keys(wire).sort()).toEqual(Object.keys(captured.span.attributes).sort());
        for (const [name, value] of Object.entries(captured.span.attributes)) {
          const row = NAMES[name] as AttributeRow;
          expect(wire[name], name).toBe(expectedWireType(row.type, value));
        }
      }
      // The gap, explicit: the conventions type these as doubles; a whole value is sent as an int.
      expect(wireTypes(spans[0]?.attributes ?? [])['gen_ai.request.temperature']).toBe('intValue');
      expect(wireTypes(spans[1]?.attributes ?? [])['gen_ai.request.temperature']).toBe('doubleValue');
      expect(wireTypes(spans[0]?.attributes ?? [])['llm.cost.total']).toBe('intValue');
      expect(wireTypes(spans[1]?.attributes ?? [])['llm.cost.total']).toBe('doubleValue');

      // Metrics: the token counters are declared INT, so their points leave as asInt; the cost
      // counter stays a double (asDouble), whole or not.
      const { resourceMetrics } = await reader.collect();
      const metricsSent = JSON.parse(
        new TextDecoder().decode(JsonMetricsSerializer.serializeRequest(resourceMetrics)),
      ) as {
        resourceMetrics: {
          scopeMetrics: { metrics: { name: string; sum?: { dataPoints: WireValue[] } }[] }[];
        }[];
      };
      const sums = new Map(
        metricsSent.resourceMetrics
          .flatMap((resource) => resource.scopeMetrics.flatMap((scope) => scope.metrics))
          .filter((metric) => metric.sum !== undefined)
          .map((metric) => [metric.name, metric.sum?.dataPoints ?? []]),
      );
      const fields = (name: string) =>
        (sums.get(name) ?? []).map((point) => ('asInt' in point ? 'asInt' : 'asDouble'));
      expect(fields('switchboard.client.cost')).toEqual(['asDouble']);
      if (latest) {
        for (const name of [
          'gen_ai.client.inference.usage.input_tokens',
          'gen_ai.client.inference.usage.output_tokens',
        ]) {
          expect(fields(name), name).toEqual(['asInt']);
        }
      }
    });

    it('every metric: name, instrument, unit, bucket advice, attributes, and durations equal to the spans', async () => {
      const scenarios: Captured[] = [];
      const gatewayUsage = {
        prompt_tokens: 2000,
        completion_tokens: 500,
        prompt_tokens_details: { cached_tokens: 1500, cache_write_tokens: 400 },
        cost: 0.0012,
      };
      scenarios.push(
        await call(
          primary,
          'primary',
          { model: 'primary-flash', messages: [{ role: 'user', content: 'a' }] },
          {
            role: 'judge',
            fault: chatReply(
              'c1',
              'primary-flash-0815',
              {
                prompt_tokens: 1200,
                completion_tokens: 300,
                prompt_cache_hit_tokens: 1024,
                prompt_cache_miss_tokens: 176,
                completion_tokens_details: { reasoning_tokens: 120 },
              },
              { content: 'x' },
            ),
          },
        ),
        await call(
          gateway,
          'gateway',
          { model: 'primary-v4-pro', messages: [{ role: 'user', content: 'b' }] },
          {
            role: 'detector',
            fault: chatReply('g1', 'primary-v4-pro', gatewayUsage, { content: '[]' }),
          },
        ),
        await call(
          primary,
          'primary',
          { model: 'primary-flash', messages: [{ role: 'user', content: 'c' }] },
          {
            fault: { path: '/chat/completions', status: 429, times: 1 },
          },
        ),
      );
      const { resourceMetrics, errors } = await reader.collect();
      expect(errors).toEqual([]);
      const scopes = resourceMetrics.scopeMetrics;
      expect(scopes.map((scope) => scope.scope)).toEqual([
        {
          name: '@switchboard/telemetry',
          version: PACKAGE_VERSION,
          schemaUrl: SCHEMA_URLS[mode],
        },
      ]);
      const collected = new Map<string, MetricData>(
        scopes[0]?.metrics.map((metric) => [metric.descriptor.name, metric]),
      );
      // No call was streamed: the chunk metrics have no point, so they are not exported at all.
      const specs = metricsOf(mode);
      for (const name of [
        'gen_ai.client.inference.time_to_first_chunk',
        'gen_ai.client.operation.time_to_first_chunk',
        'gen_ai.client.inference.time_per_output_chunk',
        'gen_ai.client.operation.time_per_output_chunk',
      ]) {
        specs.delete(name);
      }
      expect([...collected.keys()].sort()).toEqual([...specs.keys()].sort());
      for (const [name, spec] of specs) {
        const metric = collected.get(name) as MetricData;
        // What the exporter sees of the instrument: a histogram's points, or a monotonic sum's (a counter).
        expect((metric.descriptor as { type?: unknown }).type, name).toBe(spec.instrument);
        expect(metric.descriptor.unit, name).toBe(spec.unit);
        if (spec.buckets !== null) {
          expect(metric.dataPointType, name).toBe(DataPointType.HISTOGRAM);
          for (const point of metric.dataPoints) {
            expect((point.value as Histogram).buckets.boundaries, name).toEqual(spec.buckets);
          }
        } else {
          expect(metric.dataPointType, name).toBe(DataPointType.SUM);
          expect(metric.dataPointType === DataPointType.SUM && metric.isMonotonic, name).toBe(true);
        }
        for (const point of metric.dataPoints) checkTypes(point.attributes, mode);
      }

      const primaryBase = metricAttributes(primary, 'primary', 'primary-flash');
      const gatewayBase = metricAttributes(gateway, 'gateway', 'primary-v4-pro');
      const points = (name: string) =>
        (collected.get(name) as MetricData).dataPoints.map((point) => [point.attributes, point.value]);
      const sums = (name: string) =>
        (collected.get(name) as MetricData).dataPoints.map((point) => [
          point.attributes,
          (point.value as Histogram).sum,
        ]);

      // Durations: one point per call, equal to the span's duration; the failure carries error.type.
      const [ok, viaGateway, limited] = scenarios.map((scenario) => seconds(scenario.span));
      const duration = latest ? 'gen_ai.client.inference.duration' : 'gen_ai.client.operation.duration';
      const durations = sums(duration);
      expect(durations).toHaveLength(3);
      expect(durations).toEqual(
        expect.arrayContaining([
          [primaryBase, ok],
          [gatewayBase, viaGateway],
          [{ ...primaryBase, 'error.type': 'rate_limited' }, limited],
        ]),
      );
      for (const [, value] of durations) expect(Number.isFinite(value)).toBe(true);

      if (!latest) {
        expect(sums('gen_ai.client.token.usage')).toEqual(
          expect.arrayContaining([
            [{ ...primaryBase, 'gen_ai.token.type': 'input' }, 1200],
            [{ ...primaryBase, 'gen_ai.token.type': 'output' }, 300],
            [{ ...gatewayBase, 'gen_ai.token.type': 'input' }, 2000],
            [{ ...gatewayBase, 'gen_ai.token.type': 'output' }, 500],
          ]),
        );
        expect(sums('gen_ai.client.token.usage')).toHaveLength(4);
      } else {
        const byModality = (base: object) => ({ ...base, 'gen_ai.token.modality': 'unknown' });
        const counted: Record<string, [object, number][]> = {
          // The failed call (the 429, to the primary) adds 0 with modality unknown: the primary's
          // points sum both of its calls. A count the reply did not carry is 0 too.
          'gen_ai.client.inference.usage.input_tokens': [
            [byModality(primaryBase), 1200],
            [byModality(gatewayBase), 2000],
          ],
          'gen_ai.client.inference.usage.output_tokens': [
            [byModality(primaryBase), 300],
            [byModality(gatewayBase), 500],
          ],
          'gen_ai.client.inference.usage.cache_read.input_tokens': [
            [byModality(primaryBase), 1024],
            [byModality(gatewayBase), 1500],
          ],
          // Only the gateway reported cache writes and only the primary reported reasoning.
          'gen_ai.client.inference.usage.cache_write.input_tokens': [
            [byModality(primaryBase), 0],
            [byModality(gatewayBase), 400],
          ],
          'gen_ai.client.inference.usage.reasoning.output_tokens': [
            [byModality(primaryBase), 120],
            [byModality(gatewayBase), 0],
          ],
        };
        for (const [name, expected] of Object.entries(counted)) {
          expect(points(name), name).toHaveLength(expected.length);
          expect(points(name), name).toEqual(expect.arrayContaining(expected));
        }
        // One point per call, the failed one included: 0 tokens, with its error.type.
        const failed = { ...primaryBase, 'error.type': 'rate_limited' };
        for (const [name, [primaryTokens, gatewayTokens]] of [
          ['gen_ai.client.inference.operation.input_tokens', [1200, 2000]],
          ['gen_ai.client.inference.operation.output_tokens', [300, 500]],
        ] as const) {
          expect(sums(name), name).toHaveLength(3);
          expect(sums(name), name).toEqual(
            expect.arrayContaining([
              [primaryBase, primaryTokens],
              [gatewayBase, gatewayTokens],
              [failed, 0],
            ]),
          );
        }
      }

      // The cost counter counts the ledger's figure (unit USD; the proposal's currency attribute in the
      // latest mode only); a failed call costs nothing.
      const currency = latest ? { 'gen_ai.usage.cost.currency': 'USD' } : {};
      const judgeCost = exact(scenarios[0]?.record.costUsd ?? null);
      const detectorCost = exact(scenarios[1]?.record.costUsd ?? null);
      expect(points('switchboard.client.cost')).toEqual(
        expect.arrayContaining([
          [
            {
              'switchboard.role': 'judge',
              'gen_ai.request.model': 'primary-flash',
              'switchboard.route': `primary ${primary.url}`,
              ...currency,
            },
            judgeCost,
          ],
          [
            {
              'switchboard.role': 'detector',
              'gen_ai.request.model': 'primary-v4-pro',
              'switchboard.route': `gateway ${gateway.url}`,
              ...currency,
            },
            detectorCost,
          ],
        ]),
      );
      expect(points('switchboard.client.cost')).toHaveLength(2);
    });

    it('the time-to-first-chunk metric: one point per streamed call, equal to its span attribute; none for a plain call', async () => {
      const request: CompleteRequest = {
        model: 'primary-flash',
        messages: [{ role: 'user', content: 'Stream it.' }],
      };
      const streamed = await call(primary, 'primary', request, { stream: true });
      await call(primary, 'primary', request, {});
      const { resourceMetrics, errors } = await reader.collect();
      expect(errors).toEqual([]);
      const name = latest
        ? 'gen_ai.client.inference.time_to_first_chunk'
        : 'gen_ai.client.operation.time_to_first_chunk';
      const spec = metricsOf(mode).get(name) as MetricRow;
      expect(spec).toBeDefined();
      const metric = resourceMetrics.scopeMetrics[0]?.metrics.find(
        (candidate) => candidate.descriptor.name === name,
      ) as MetricData;
      expect(metric, name).toBeDefined();
      expect((metric.descriptor as { type?: unknown }).type).toBe(spec.instrument);
      expect(metric.descriptor.unit).toBe(spec.unit);
      expect(metric.dataPointType).toBe(DataPointType.HISTOGRAM);
      expect(metric.dataPoints).toHaveLength(1);
      const [point] = metric.dataPoints;
      const value = point?.value as Histogram;
      expect(value.buckets.boundaries).toEqual(spec.buckets);
      expect(value.count).toBe(1);
      expect(value.sum).toBe(streamed.span.attributes['gen_ai.response.time_to_first_chunk']);
      expect(value.sum).toBe((streamed.record.firstDeltaMs as number) / 1000);
      expect(point?.attributes).toEqual(metricAttributes(primary, 'primary', 'primary-flash'));
      checkTypes(point?.attributes ?? {}, mode);
      // Both calls are in the duration metric.
      const duration = latest ? 'gen_ai.client.inference.duration' : 'gen_ai.client.operation.duration';
      const durations = resourceMetrics.scopeMetrics[0]?.metrics.find(
        (candidate) => candidate.descriptor.name === duration,
      );
      const durationPoint = durations?.dataPoints[0]?.value as Histogram | undefined;
      expect(durationPoint?.count).toBe(2);
    });

    it('the time-per-output-chunk metric: a point per chunk after the first of a streamed call, its wait in seconds; none for a plain call', async () => {
      const request: CompleteRequest = {
        model: 'primary-flash',
        messages: [{ role: 'user', content: 'Stream a long answer, please, in many pieces.' }],
      };
      const streamed = await call(primary, 'primary', request, { stream: true });
      const plain = await call(primary, 'primary', request, {});
      expect(plain.chunks).toEqual([]);
      expect(streamed.chunks.length).toBeGreaterThan(1);
      const { resourceMetrics, errors } = await reader.collect();
      expect(errors).toEqual([]);
      const name = latest
        ? 'gen_ai.client.inference.time_per_output_chunk'
        : 'gen_ai.client.operation.time_per_output_chunk';
      const spec = metricsOf(mode).get(name) as MetricRow;
      expect(spec).toBeDefined();
      const metric = resourceMetrics.scopeMetrics[0]?.metrics.find(
        (candidate) => candidate.descriptor.name === name,
      ) as MetricData;
      expect(metric, name).toBeDefined();
      expect((metric.descriptor as { type?: unknown }).type).toBe(spec.instrument);
      expect(metric.descriptor.unit).toBe(spec.unit);
      expect(metric.dataPointType).toBe(DataPointType.HISTOGRAM);
      expect(metric.dataPoints).toHaveLength(1);
      const [point] = metric.dataPoints;
      const value = point?.value as Histogram;
      expect(value.buckets.boundaries).toEqual(spec.buckets);
      expect(value.count).toBe(streamed.chunks.length);
      const seconds = streamed.chunks.map((chunk) => chunk.sinceLastChunkMs / 1000);
      expect(value.sum).toBeCloseTo(
        seconds.reduce((sum, each) => sum + each, 0),
        9,
      );
      expect(value.min).toBe(Math.min(...seconds));
      expect(value.max).toBe(Math.max(...seconds));
      expect(point?.attributes).toEqual(metricAttributes(primary, 'primary', 'primary-flash'));
      checkTypes(point?.attributes ?? {}, mode);
    });
  },
);

describe('otelObserver conventions switch', () => {
  it('follows OTEL_SEMCONV_STABILITY_OPT_IN when it lists gen_ai_latest_experimental; the option wins', async () => {
    const before = process.env.OTEL_SEMCONV_STABILITY_OPT_IN;
    const names = async (options: { conventions?: OtelConventions }) => {
      const reader2 = new CollectingReader();
      const observer = await otelObserver({
        ...options,
        meterProvider: new MeterProvider({ readers: [reader2] }),
      });
      // A call with usage and no cost: the duration and token metrics, nothing else.
      observer.afterCall?.({ ...PRIMARY_JUDGE_CALL, costUsd: null, costNanoUsd: null });
      const { resourceMetrics } = await reader2.collect();
      return resourceMetrics.scopeMetrics.flatMap((scope) =>
        scope.metrics.map((metric) => metric.descriptor.name),
      );
    };
    try {
      process.env.OTEL_SEMCONV_STABILITY_OPT_IN = 'http, gen_ai_latest_experimental';
      expect(await names({})).toContain('gen_ai.client.inference.duration');
      expect((await names({ conventions: 'v1.41.0' })).sort()).toEqual([
        'gen_ai.client.operation.duration',
        'gen_ai.client.token.usage',
      ]);
      process.env.OTEL_SEMCONV_STABILITY_OPT_IN = 'http';
      expect(await names({})).toContain('gen_ai.client.operation.duration');
    } finally {
      if (before === undefined) delete process.env.OTEL_SEMCONV_STABILITY_OPT_IN;
      else process.env.OTEL_SEMCONV_STABILITY_OPT_IN = before;
    }
  });
});
