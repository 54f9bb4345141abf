import { mkdtempSync, readFileSync } from 'node:fs';
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

describe('telemetry over streamed calls', () => {
  it('journals, meters and traces a whole stream and a cut one, the cut one at its estimated cost', async () => {
    const exporter = new InMemorySpanExporter();
    trace.setGlobalTracerProvider(
      new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }),
    );
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
});
