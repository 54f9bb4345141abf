import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type CallRecord, ChatAdapter, type ChatTransport, OpenAITransport } from '@switchboard/adapter';
import { CallJournal, CallMeter, otelObserver } from '@switchboard/telemetry';
import { median } from './measure.js';
import { BENCH_API_KEY, BENCH_MESSAGES, BENCH_MODEL } from './settings.js';

/**
 * What telemetry adds per call, in CPU microseconds of this process (medians
 * over the rounds), against what the plain adapter spends per call.
 */
export interface TelemetryOverheadResult {
  readonly calls: number;
  readonly rounds: number;
  /** CPU per call of a plain ChatAdapter + OpenAITransport against the emulator on loopback. */
  readonly adapterLoopbackMicros: number;
  /** CPU per call of a plain ChatAdapter over a stub transport (no network, no parsing). */
  readonly adapterStubMicros: number;
  /** CPU per call of journaling `calls` records (serializing, buffering, writing, closing). */
  readonly journalMicros: number;
  /** CPU per call of the OpenTelemetry observer with `@opentelemetry/api` loaded and no SDK registered. */
  readonly otelNoSdkMicros: number;
  /** CPU per call of the in-memory meter. */
  readonly meterMicros: number;
}

// A record as the adapter makes it for one priced call to the primary.
const RECORD: CallRecord = Object.freeze({
  model: BENCH_MODEL,
  usage: Object.freeze({
    prompt_tokens: 1_200,
    completion_tokens: 300,
    total_tokens: 1_500,
    prompt_cache_hit_tokens: 1_024,
    prompt_cache_miss_tokens: 176,
    prompt_tokens_details: Object.freeze({ cached_tokens: 1_024 }),
    completion_tokens_details: Object.freeze({ reasoning_tokens: 0 }),
  }),
  costUsd: 0.000487776,
  pricedAs: BENCH_MODEL,
  priceSource: 'table',
  tariff: null,
  at: '2026-11-23T08:00:00.000Z',
  durationMs: 850,
  attempts: 1,
  streamed: false,
  firstDeltaMs: null,
  role: 'judge',
  error: null,
});
const ENDPOINT = { provider: 'primary', baseUrl: 'https://api.primary.example', thinking: false };

async function cpuMicros(work: () => Promise<void> | void): Promise<number> {
  const before = process.cpuUsage();
  await work();
  const spent = process.cpuUsage(before);
  return spent.user + spent.system;
}

function stubTransport(): ChatTransport {
  const reply = {
    id: 'chatcmpl-bench',
    model: BENCH_MODEL,
    choices: [
      { index: 0, message: { role: 'assistant', content: 'A missing import.' }, finish_reason: 'stop' },
    ],
    usage: RECORD.usage,
  };
  return { completeChatRaw: async () => reply, completeChat: async () => reply.choices[0]?.message ?? {} };
}

async function loopbackAdapter(baseUrl: string, calls: number): Promise<number> {
  const adapter = new ChatAdapter(new OpenAITransport({ apiKey: BENCH_API_KEY, baseUrl }));
  const request = { model: BENCH_MODEL, messages: BENCH_MESSAGES };
  for (let call = 0; call < 50; call++) await adapter.complete(request);
  return (
    (await cpuMicros(async () => {
      for (let call = 0; call < calls; call++) await adapter.complete(request);
    })) / calls
  );
}

async function stubAdapter(calls: number): Promise<number> {
  const adapter = new ChatAdapter(stubTransport());
  const request = { model: BENCH_MODEL, messages: BENCH_MESSAGES };
  return (
    (await cpuMicros(async () => {
      for (let call = 0; call < calls; call++) await adapter.complete(request);
    })) / calls
  );
}

async function journal(calls: number): Promise<number> {
  const folder = mkdtempSync(join(tmpdir(), 'bench-journal-'));
  try {
    const journalFile = new CallJournal(join(folder, 'run.jsonl'), { endpoint: ENDPOINT });
    const micros = await cpuMicros(async () => {
      for (let call = 0; call < calls; call++) {
        journalFile.afterCall(RECORD);
        // Let the asynchronous writes run now and then, as the event loop does between real calls.
        if (call % 1_000 === 999) await new Promise((resolve) => setImmediate(resolve));
      }
      await journalFile.close();
    });
    if (journalFile.lines !== calls) throw new Error(`journal: ${journalFile.lines} of ${calls} lines`);
    return micros / calls;
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

async function observerLoop(afterCall: (record: CallRecord) => void, calls: number): Promise<number> {
  return (
    (await cpuMicros(() => {
      for (let call = 0; call < calls; call++) afterCall(RECORD);
    })) / calls
  );
}

/** Runs `rounds` rounds of each measurement; the loopback baseline makes `loopbackCalls` calls per round. */
export async function runTelemetryOverhead(
  emulatorUrl: string,
  calls: number,
  loopbackCalls: number,
  rounds: number,
): Promise<TelemetryOverheadResult> {
  const gc = (globalThis as { gc?: () => void }).gc;
  const observer = await otelObserver({ endpoint: ENDPOINT });
  const runs = {
    loopback: [] as number[],
    stub: [] as number[],
    journal: [] as number[],
    otel: [] as number[],
    meter: [] as number[],
  };
  for (let round = -1; round < rounds; round++) {
    const meter = new CallMeter();
    gc?.();
    const loopback = await loopbackAdapter(emulatorUrl, loopbackCalls);
    gc?.();
    const stub = await stubAdapter(calls);
    gc?.();
    const journalled = await journal(calls);
    gc?.();
    const otel = await observerLoop((record) => observer.afterCall?.(record), calls);
    gc?.();
    const metered = await observerLoop((record) => meter.afterCall(record), calls);
    if (round < 0) continue;
    runs.loopback.push(loopback);
    runs.stub.push(stub);
    runs.journal.push(journalled);
    runs.otel.push(otel);
    runs.meter.push(metered);
  }
  return {
    calls,
    rounds,
    adapterLoopbackMicros: median(runs.loopback),
    adapterStubMicros: median(runs.stub),
    journalMicros: median(runs.journal),
    otelNoSdkMicros: median(runs.otel),
    meterMicros: median(runs.meter),
  };
}

/** The figures as a markdown table, with each overhead as a share of the plain adapter's CPU per call. */
export function telemetryMarkdown(result: TelemetryOverheadResult): string {
  const share = (micros: number, of: number) => `${((micros / of) * 100).toFixed(1)}%`;
  const row = (label: string, micros: number, target: string, limit: number) =>
    `| ${label} | ${micros.toFixed(2)} | ${share(micros, result.adapterLoopbackMicros)} | ${share(micros, result.adapterStubMicros)} | ${target} | ${micros / result.adapterLoopbackMicros < limit ? 'yes' : '**no**'} |`;
  return [
    `### Telemetry overhead: ${result.calls.toLocaleString('en-US')} calls (median of ${result.rounds} rounds)`,
    '',
    `Plain adapter, CPU per call: ${result.adapterLoopbackMicros.toFixed(1)} µs over loopback HTTP to the emulator, ${result.adapterStubMicros.toFixed(2)} µs over a stub transport.`,
    '',
    '| observer | CPU µs per call | share of the adapter over loopback | share of the adapter over a stub | target | met |',
    '|---|---:|---:|---:|---|---|',
    row('journal (`CallJournal`, written and closed)', result.journalMicros, '< 3%', 0.03),
    row('OpenTelemetry, no SDK registered (`otelObserver`)', result.otelNoSdkMicros, '< 1%', 0.01),
    row('meter (`CallMeter`)', result.meterMicros, '-', Number.POSITIVE_INFINITY),
  ].join('\n');
}
