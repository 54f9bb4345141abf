import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { metrics, trace } from '@opentelemetry/api';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { ChatAdapter, OpenAITransport } from '@switchboard/adapter';
import { type Emulator, startEmulator } from '@switchboard/emulator';
import { costOf, priceOf } from '@switchboard/prices';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { observingTransport } from './__harness__/observing-transport.js';
import { CallJournal } from './call-journal.js';
import { CallMeter } from './call-meter.js';
import { endpointLabel } from './endpoint-label.js';
import { otelObserver } from './otel-observer.js';
import { reportJournal } from './report-journal.js';

let emulator: Emulator;
beforeAll(async () => {
  emulator = await startEmulator();
});
afterAll(async () => {
  trace.disable();
  metrics.disable();
  await emulator?.close();
});

const PREFIX = 'You review build logs for a CI pipeline. '.repeat(40);

describe('telemetry over a real adapter, transport and emulator (local harness until the adapter wiring lands)', () => {
  it('journals, meters and traces every raw call; the report totals equal the adapters’ costUsd()', async () => {
    const exporter = new InMemorySpanExporter();
    trace.setGlobalTracerProvider(
      new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }),
    );
    const endpoint = { provider: 'primary', baseUrl: emulator.url, thinking: false };
    const path = join(mkdtempSync(join(tmpdir(), 'e2e-')), 'run.jsonl');
    const journal = new CallJournal(path, { endpoint });
    const meter = new CallMeter({ endpoint: endpointLabel(endpoint) });
    const observers = [journal, meter, await otelObserver({ endpoint })];
    const prices = priceOf('primary-flash');
    const costModel = { cost: (usage: unknown) => costOf(prices, usage) };
    const transport = new OpenAITransport({ apiKey: 'test-key', baseUrl: emulator.url, maxAttempts: 1 });
    const adapterFor = (role: string) =>
      new ChatAdapter(observingTransport(transport, costModel, 'primary-flash', role, observers), {
        endpoint: costModel,
      });
    const detector = adapterFor('detector');
    const judge = adapterFor('judge');

    for (const step of ['compile', 'test', 'lint']) {
      await detector.complete({
        model: 'primary-flash',
        messages: [
          { role: 'system', content: PREFIX },
          { role: 'user', content: `Why did the ${step} step fail?` },
        ],
      });
    }
    await judge.complete({
      model: 'primary-flash',
      messages: [{ role: 'user', content: 'Is this a real failure?' }],
    });
    await expect(
      judge.complete({ model: 'primary-retired', messages: [{ role: 'user', content: 'Judge again.' }] }),
    ).rejects.toMatchObject({ kind: 'model_rejected' });
    await journal.close();

    const report = await reportJournal(path);
    expect(report.totals.calls).toBe(5);
    expect(report.byRole.detector?.costUsd).toBe(detector.costUsd());
    expect(report.byRole.judge?.costUsd).toBe(judge.costUsd());
    expect(report.totals.costUsd).toBeCloseTo(detector.costUsd() + judge.costUsd(), 15);
    expect(detector.costUsd()).toBeGreaterThan(0);
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
    expect(spans[2]?.attributes).toMatchObject({
      'gen_ai.usage.input_tokens': usage.prompt_tokens,
      'gen_ai.usage.output_tokens': usage.completion_tokens,
      'gen_ai.usage.cache_read.input_tokens': usage.prompt_cache_hit_tokens,
      'gen_ai.usage.cost.amount': costModel.cost(usage),
      'gen_ai.response.finish_reasons': ['stop'],
      'switchboard.role': 'detector',
    });
    expect(spans[2]?.attributes['gen_ai.response.id']).toEqual(expect.any(String));
    expect(spans[4]?.attributes['error.type']).toBe('model_rejected');
  }, 60_000);
});
