import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { metrics, trace } from '@opentelemetry/api';
import { DataPointType, type Histogram, MeterProvider, MetricReader } from '@opentelemetry/sdk-metrics';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { type CallRecord, ChatAdapter, OpenAITransport } from '@switchboard/adapter';
import { type Emulator, startEmulator } from '@switchboard/emulator';
import { costOf, priceOf } from '@switchboard/prices';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CallJournal } from './call-journal.js';
import { CallMeter } from './call-meter.js';
import { endpointLabel } from './endpoint-label.js';
import { otelObserver } from './otel-observer.js';
import { reportJournal } from './report-journal.js';

class CollectingReader extends MetricReader {
  protected override async onShutdown(): Promise<void> {}
  protected override async onForceFlush(): Promise<void> {}
}

let emulator: Emulator;
// The global tracer provider is set once; each test starts from an empty exporter.
const exporter = new InMemorySpanExporter();
beforeAll(async () => {
  trace.setGlobalTracerProvider(
    new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }),
  );
  emulator = await startEmulator();
});
afterAll(async () => {
  trace.disable();
  metrics.disable();
  await emulator?.close();
});

const PREFIX = 'You review build logs for a CI pipeline. '.repeat(40);

describe('telemetry over a real adapter, transport and emulator', () => {
  it('journals, meters and traces every raw call; the report totals equal the adapters’ costUsd()', async () => {
    exporter.reset();
    const endpoint = { provider: 'primary', baseUrl: emulator.url, thinking: false };
    const path = join(mkdtempSync(join(tmpdir(), 'e2e-')), 'run.jsonl');
    const journal = new CallJournal(path, { endpoint });
    const meter = new CallMeter({ endpoint: endpointLabel(endpoint) });
    const prices = priceOf('primary-flash');
    const costModel = { cost: (usage: unknown) => costOf(prices, usage) };
    const transport = new OpenAITransport({ apiKey: 'test-key', baseUrl: emulator.url, maxAttempts: 1 });
    const adapter = new ChatAdapter(transport, { endpoint: costModel, observers: [journal, meter] });
    // Added later, and still heard by the views and bounded copies made before.
    const detector = adapter.forRole('detector');
    const judge = adapter.bounded(256).forRole('judge');
    adapter.observe(await otelObserver({ endpoint }));

    const records: CallRecord[] = [];
    for (const step of ['compile', 'test', 'lint']) {
      const response = await detector.complete({
        model: 'primary-flash',
        messages: [
          { role: 'system', content: PREFIX },
          { role: 'user', content: `Why did the ${step} step fail?` },
        ],
      });
      records.push(...response.calls);
    }
    const verdict = await judge.complete({
      model: 'primary-flash',
      messages: [{ role: 'user', content: 'Is this a real failure?' }],
    });
    records.push(...verdict.calls);
    await expect(
      judge.complete({ model: 'primary-retired', messages: [{ role: 'user', content: 'Judge again.' }] }),
    ).rejects.toMatchObject({ kind: 'model_rejected' });
    await journal.close();

    const report = await reportJournal(path);
    expect(report.totals.calls).toBe(5);
    // Money is summed in integer nano-dollars: each call's cost rounded to a nano-dollar, then added exactly.
    const nano = (calls: typeof records) =>
      calls.reduce((sum, record) => sum + Math.round((record.costUsd ?? 0) * 1e9), 0);
    expect(report.totals.costNanoUsd).toBe(nano(records));
    expect(report.byRole.detector?.costNanoUsd).toBe(
      nano(records.filter((record) => record.role === 'detector')),
    );
    // The role views share their adapter's ledger; the judge's is its bounded copy's own.
    expect(report.byRole.detector?.costUsd).toBeCloseTo(detector.costUsd(), 12);
    expect(report.byRole.judge?.costUsd).toBeCloseTo(judge.costUsd(), 12);
    expect(report.totals.costUsd).toBeCloseTo(adapter.totalCostUsd(), 12);
    expect(detector.costUsd()).toBeGreaterThan(0);
    expect(judge.costUsd()).toBeGreaterThan(0);
    expect(report.cache.hitTokens).toBeGreaterThan(0);
    expect(report.cache.savedUsd).toBeGreaterThan(0);
    expect(report.errors).toEqual({ model_rejected: { calls: 1, degradations: 1 } });
    expect(report.byEndpoint[endpointLabel(endpoint)]?.calls).toBe(5);

    const snapshot = meter.snapshot();
    expect(snapshot.totals).toEqual(report.totals);
    expect(snapshot.cacheHitRatio).toBe(report.cache.ratio);

    const spans = exporter.getFinishedSpans();
    expect(spans.map((span) => span.name)).toEqual([
      'chat primary-flash',
      'chat primary-flash',
      'chat primary-flash',
      'chat primary-flash',
      'chat primary-retired',
    ]);
    const usage = detector.usage[2] as Record<string, number>;
    const record = records[2];
    expect(record?.usage).toBe(usage);
    expect(record?.responseId).toMatch(/\S/);
    expect(record?.responseModel).toMatch(/\S/);
    expect(record?.finishReason).toBe('stop');
    expect(spans[2]?.attributes).toMatchObject({
      'gen_ai.request.model': 'primary-flash',
      'gen_ai.response.id': record?.responseId,
      'gen_ai.response.model': record?.responseModel,
      'gen_ai.response.finish_reasons': [record?.finishReason],
      'gen_ai.usage.input_tokens': usage.prompt_tokens,
      'gen_ai.usage.output_tokens': usage.completion_tokens,
      'gen_ai.usage.cache_read.input_tokens': usage.prompt_cache_hit_tokens,
      'switchboard.cost.amount': costModel.cost(usage),
      'switchboard.role': 'detector',
      'switchboard.attempts': 1,
    });
    // Every reply is its own: the ids differ from call to call.
    expect(new Set(records.map((call) => call.responseId)).size).toBe(4);
    for (const [index, call] of records.entries()) {
      expect(spans[index]?.attributes['gen_ai.response.id']).toBe(call.responseId);
    }
    expect(spans[3]?.attributes['switchboard.role']).toBe('judge');
    expect(spans[4]?.attributes['error.type']).toBe('model_rejected');
    expect(spans[4]?.attributes['gen_ai.response.id']).toBeUndefined();

    // The journal keeps the reply facts too.
    const lines = readFileSync(path, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(lines.map((line) => line.responseId)).toEqual([...records.map((call) => call.responseId), null]);
    expect(lines[3]).toMatchObject({ role: 'judge', finishReason: 'stop', outcome: 'ok' });
  }, 60_000);

  it('journals, meters and traces a whole stream and a cut one, the cut one at its estimated cost', async () => {
    exporter.reset();
    const endpoint = { provider: 'primary', baseUrl: emulator.url, thinking: false };
    const path = join(mkdtempSync(join(tmpdir(), 'stream-e2e-')), 'run.jsonl');
    const journal = new CallJournal(path, { endpoint });
    const meter = new CallMeter({ endpoint: endpointLabel(endpoint) });
    const prices = priceOf('primary-flash');
    const transport = new OpenAITransport({ apiKey: 'test-key', baseUrl: emulator.url, maxAttempts: 1 });
    const adapter = new ChatAdapter(transport, {
      endpoint: { cost: (usage: unknown) => costOf(prices, usage) },
      observers: [journal, meter],
    });
    adapter.observe(await otelObserver({ endpoint }));
    const request = {
      model: 'primary-flash',
      messages: [{ role: 'user' as const, content: 'Why did lint fail?' }],
    };

    const whole = await adapter.stream(request).response;
    emulator.setFaults([{ stream: { cutAfterEvents: 5 } }]);
    const failure = await adapter
      .stream(request)
      .response.catch((error: unknown) => error as { kind: string; partial?: { calls: unknown[] } });
    await journal.close();

    expect(failure).toMatchObject({ kind: 'connection' });
    const lines = readFileSync(path, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatchObject({ streamed: true, outcome: 'ok', priceSource: 'endpoint' });
    expect(lines[0].firstDeltaMs).toBeGreaterThanOrEqual(0);
    expect(lines[0].costUsd).toBe(whole.costUsd);
    expect(lines[1]).toMatchObject({
      streamed: true,
      outcome: 'connection',
      usage: null,
      priceSource: 'estimate',
    });
    expect(lines[1].costUsd).toBeGreaterThan(0);
    expect(lines[0].costUsd + lines[1].costUsd).toBe(adapter.costUsd());

    const report = await reportJournal(path);
    expect(report.totals.calls).toBe(2);
    expect(meter.snapshot().totals).toEqual(report.totals);
    expect(exporter.getFinishedSpans()).toHaveLength(2);
  });

  it.each(['v1.41.0', 'gen_ai_latest_experimental'] as const)(
    'marks a streamed span and records its time to first chunk; a plain call has neither (%s)',
    async (conventions) => {
      exporter.reset();
      const reader = new CollectingReader();
      const endpoint = { provider: 'primary', baseUrl: emulator.url, thinking: false };
      const transport = new OpenAITransport({ apiKey: 'test-key', baseUrl: emulator.url, maxAttempts: 1 });
      const adapter = new ChatAdapter(transport);
      adapter.observe(
        await otelObserver({
          endpoint,
          conventions,
          meterProvider: new MeterProvider({ readers: [reader] }),
        }),
      );
      const request = {
        model: 'primary-flash',
        messages: [{ role: 'user' as const, content: 'Why did the deploy fail?' }],
      };

      emulator.setFaults([]); // a fault plan stays until replaced
      const plain = await adapter.complete(request);
      const streamed = await adapter.stream(request).response;
      emulator.setFaults([{ stream: { cutAfterEvents: 5 } }]);
      const cut = await adapter
        .stream(request)
        .response.catch((error: { partial?: { calls: CallRecord[] } }) => error);

      const [plainSpan, streamedSpan, cutSpan] = exporter.getFinishedSpans();
      expect(plain.calls[0]?.streamed).toBe(false);
      expect(plainSpan?.attributes).not.toHaveProperty('gen_ai.request.stream');
      expect(plainSpan?.attributes).not.toHaveProperty('gen_ai.response.time_to_first_chunk');

      const firstDeltaMs = streamed.calls[0]?.firstDeltaMs;
      expect(firstDeltaMs).toBeGreaterThan(0);
      expect(streamedSpan?.attributes['gen_ai.request.stream']).toBe(true);
      expect(streamedSpan?.attributes['gen_ai.response.time_to_first_chunk']).toBe(
        (firstDeltaMs ?? 0) / 1000,
      );
      // A stream cut after its first deltas still had a first chunk.
      const cutRecord = (cut as { partial?: { calls: CallRecord[] } }).partial?.calls[0];
      expect(cutRecord?.firstDeltaMs).toBeGreaterThan(0);
      expect(cutSpan?.attributes['gen_ai.request.stream']).toBe(true);
      expect(cutSpan?.attributes['gen_ai.response.time_to_first_chunk']).toBe(
        (cutRecord?.firstDeltaMs ?? 0) / 1000,
      );

      // The histogram: one point per streamed call, none for the plain one. The latest conventions
      // renamed it with the duration (semantic-conventions-genai pull request 521).
      const firstChunkMetric =
        conventions === 'v1.41.0'
          ? 'gen_ai.client.operation.time_to_first_chunk'
          : 'gen_ai.client.inference.time_to_first_chunk';
      const { resourceMetrics } = await reader.collect();
      const firstChunk = resourceMetrics.scopeMetrics
        .flatMap((scope) => scope.metrics)
        .find((metric) => metric.descriptor.name === firstChunkMetric);
      expect(firstChunk?.descriptor.unit).toBe('s');
      expect(firstChunk?.dataPointType).toBe(DataPointType.HISTOGRAM);
      const histogram = firstChunk?.dataPoints[0]?.value as Histogram | undefined;
      expect(histogram?.count).toBe(2);
      expect(histogram?.sum).toBeCloseTo(((firstDeltaMs ?? 0) + (cutRecord?.firstDeltaMs ?? 0)) / 1000, 9);
    },
  );
});
