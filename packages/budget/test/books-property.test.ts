// The books are never below the bill, on every path (a property over random runs). Each run
// makes a few calls — plain and streamed — through a real ChatAdapter over OpenAITransport to
// the emulator, with a random fault on each (cut after N events, an error event after output,
// usage absent / odd / early / duplicated, bytes after [DONE], 429 and 5xx, timeouts, the
// caller breaking off or aborting), observed by a budget (memory, or a real redis-server), a
// CallJournal and a CallMeter. After each call and each run: the budget's spend (settled plus
// unsettled worst cases) is at least what the emulator billed; spend never passes the limit;
// the journal has exactly one line per call and its total is the records'; `report` reads
// every line. Seeded: BOOKS_SEED=<n> replays a run, BOOKS_RUNS=<n> runs more (the nightly
// command in docs/development.md); the seed is printed on failure.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type CallRecord,
  ChatAdapter,
  type ChatStream,
  type CompleteRequest,
  OpenAITransport,
} from '@switchboard/adapter';
import { type Emulator, type FaultRule, startEmulator } from '@switchboard/emulator';
import { costOf, priceOf } from '@switchboard/prices';
import { CallJournal, CallMeter, reportJournal } from '@switchboard/telemetry';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBudget } from '../src/budget.js';
import { memoryStores, postgresStores, redisStores } from './support/store-factories.js';

const KEY = 'sk-books-property-test';
const MODEL = 'primary-flash';
const RUNS = Number(process.env.BOOKS_RUNS ?? 200);
const SEED = process.env.BOOKS_SEED === undefined ? undefined : Number(process.env.BOOKS_SEED);
// The suite's 120 s covers the default runs; more runs (the nightly) get time in proportion.
const TIMEOUT_MS = Math.max(120_000, RUNS * 500);
const endpoint = { cost: (usage: unknown) => costOf(priceOf(MODEL), usage) };

/** How the caller reads a streamed call: to the end, breaking off after N deltas, or aborting after N. */
type Reader = { readonly kind: 'all' } | { readonly kind: 'break' | 'abort'; readonly after: number };

interface PlannedCall {
  readonly streamed: boolean;
  readonly fault: FaultRule | null;
  readonly reader: Reader;
  readonly maxTokens: number;
  readonly drain: boolean;
}

const ODD_USAGE = fc.constantFrom<unknown>(
  {},
  { prompt_tokens: '12', completion_tokens: '3' },
  { input_tokens: 12, output_tokens: 3 },
  { total_tokens: 15 },
  { prompt_tokens: -12, completion_tokens: -3 },
  null,
);

const streamFault = fc.oneof(
  fc.record({ cutAfterEvents: fc.integer({ min: 0, max: 30 }) }),
  fc.record({
    errorAt: fc.integer({ min: 1, max: 30 }),
    errorCode: fc.constantFrom(429, 500, 502),
    errorEvent: fc.boolean(),
  }),
  fc.record({ noUsage: fc.constant(true) }),
  fc.record({ usage: ODD_USAGE }),
  fc.record({ usageEveryChunk: fc.constant(true), cutAfterEvents: fc.integer({ min: 2, max: 30 }) }),
  fc.record({ usageEveryChunk: fc.constant(true) }),
  fc.record({ duplicateUsage: fc.constant(true) }),
  fc.record({ afterDone: fc.constantFrom('data: {"late": true}\n\n', 'garbage after the end', ': c\n\n') }),
  fc.record({ endAfterEvents: fc.integer({ min: 1, max: 30 }) }),
);

const fault: fc.Arbitrary<FaultRule | null> = fc.oneof(
  { weight: 3, arbitrary: fc.constant(null) },
  { weight: 6, arbitrary: streamFault.map((stream) => ({ stream })) },
  { weight: 1, arbitrary: fc.constantFrom<FaultRule>({ status: 429 }, { status: 500 }, { status: 503 }) },
  { weight: 1, arbitrary: fc.constantFrom<FaultRule>({ cutOff: true }, { reset: true }, { truncate: true }) },
  { weight: 1, arbitrary: ODD_USAGE.map((usage) => ({ usage })) },
  // Past the attempt's timeout (0.3 s): the request may have reached the provider.
  { weight: 1, arbitrary: fc.constant<FaultRule>({ delayMs: 600 }) },
);

const reader: fc.Arbitrary<Reader> = fc.oneof(
  { weight: 3, arbitrary: fc.constant<Reader>({ kind: 'all' }) },
  {
    weight: 2,
    arbitrary: fc.record({ kind: fc.constantFrom('break', 'abort'), after: fc.integer({ min: 0, max: 12 }) }),
  },
);

const plannedCall: fc.Arbitrary<PlannedCall> = fc.record({
  streamed: fc.boolean(),
  fault,
  reader,
  maxTokens: fc.integer({ min: 8, max: 200 }),
  drain: fc.boolean(),
});

const run = fc.record({
  calls: fc.array(plannedCall, { minLength: 1, maxLength: 5 }),
  // A limit that a few calls can reach, so some are refused.
  limitNanoUsd: fc.integer({ min: 20_000, max: 2_000_000 }),
});

async function readStream(stream: ChatStream, how: Reader): Promise<void> {
  let seen = 0;
  try {
    for await (const _ of stream) {
      seen += 1;
      if (how.kind === 'break' && seen >= how.after) break;
      if (how.kind === 'abort' && seen >= how.after) stream.abort(new Error('the caller stopped'));
    }
  } catch {
    // A failed or aborted stream: its record and settlement are what is checked.
  }
  await stream.response.catch(() => {});
}

describe.each([memoryStores(), redisStores(), postgresStores()])(
  'books never below the bill (property), on $name',
  (factory) => {
    let emulator: Emulator;
    let dir: string;
    let runs = 0;
    // Which paths the runs took: every settlement kind and every billed outcome must show up.
    const settlements = new Set<string>();
    const outcomes = new Set<string>();

    beforeAll(async () => {
      await factory.setUp();
      emulator = await startEmulator({ key: KEY });
      dir = await mkdtemp(join(tmpdir(), 'books-property-'));
    });
    afterAll(async () => {
      await emulator?.close();
      await factory.tearDown();
      await rm(dir, { recursive: true, force: true });
    });

    async function settled(): Promise<void> {
      for (let tries = 0; emulator.inFlight > 0 && tries < 1000; tries += 1) {
        await new Promise((resolve) => setTimeout(resolve, 2));
      }
    }

    it(
      `holds over ${RUNS} seeded runs of calls with random faults`,
      async () => {
        await fc.assert(
          fc.asyncProperty(run, async ({ calls, limitNanoUsd }) => {
            runs += 1;
            emulator.reset();
            const budget = createBudget({
              store: factory.create(),
              scope: { name: `books-property-${runs}`, limitUsd: limitNanoUsd / 1e9 },
              onWarning: () => {},
            });
            const journalPath = join(dir, `run-${runs}.jsonl`);
            const journal = new CallJournal(journalPath);
            const meter = new CallMeter();
            const records: CallRecord[] = [];
            const transport = new OpenAITransport({
              apiKey: KEY,
              baseUrl: emulator.url,
              maxAttempts: 2,
              retryBackoffSeconds: 0.001,
            });
            for (const call of calls) {
              const adapter = new ChatAdapter(transport, {
                endpoint,
                observers: [budget, journal, meter],
                onStreamBreak: call.drain ? 'drain' : 'close',
                drainSeconds: 2,
              });
              adapter.observe({ afterCall: (record) => void records.push(record) });
              emulator.setFaults(call.fault === null ? [] : [call.fault]);
              const billedBefore = emulator.bill().totalNanoUsd;
              const [before] = await budget.usage();
              const request: CompleteRequest = {
                model: MODEL,
                messages: [{ role: 'user', content: 'Name the failing step and why it failed.' }],
                maxTokens: call.maxTokens,
                timeoutSeconds: 0.3,
              };
              if (call.streamed) await readStream(adapter.stream(request), call.reader);
              else await adapter.complete(request).catch(() => {});
              await settled();
              await budget.idle();
              const [after] = await budget.usage();
              const billed = emulator.bill().totalNanoUsd - billedBefore;
              // Per call: what the budget counted for it is at least what the provider billed for it.
              expect((after?.spentNanoUsd ?? 0) - (before?.spentNanoUsd ?? 0)).toBeGreaterThanOrEqual(billed);
              expect(after?.reservedNanoUsd).toBe(0);
            }
            const [scope] = await budget.usage();
            const bill = emulator.bill();
            for (const record of records) settlements.add(String(record.settlement));
            for (const billed of bill.requests) outcomes.add(billed.outcome);
            expect(scope?.spentNanoUsd).toBeGreaterThanOrEqual(bill.totalNanoUsd);
            expect(scope?.spentNanoUsd).toBeLessThanOrEqual(limitNanoUsd);
            // No call is free once output arrived: an estimate is above $0.
            for (const record of records) {
              if (record.settlement === 'estimate') expect(record.costNanoUsd).toBeGreaterThan(0);
            }
            await budget.close();
            await journal.close();
            expect(records).toHaveLength(calls.length);
            expect(journal.lines).toBe(calls.length);
            expect(journal.dropped).toBe(0);
            const recordsTotal = records.reduce((sum, record) => sum + (record.costNanoUsd ?? 0), 0);
            const report = await reportJournal(journalPath, { onIssue: () => {} });
            expect(report.skipped.count).toBe(0);
            expect(report.totals.calls).toBe(calls.length);
            expect(report.totals.costNanoUsd).toBe(recordsTotal);
            expect(meter.snapshot().totals.costNanoUsd).toBe(recordsTotal);
          }),
          { numRuns: RUNS, ...(SEED === undefined ? {} : { seed: SEED }), endOnFailure: true },
        );
        if (RUNS >= 100) {
          expect([...settlements].sort()).toEqual(['estimate', 'exact', 'none', 'unsettled']);
          expect([...outcomes].sort()).toEqual(['cut', 'error_after_output', 'refused', 'whole']);
        }
      },
      TIMEOUT_MS,
    );
  },
);
