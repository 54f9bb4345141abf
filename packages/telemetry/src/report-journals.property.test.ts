import { Readable } from 'node:stream';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PRIMARY_JUDGE_CALL } from './__fixtures__/call-records.js';
import { journalLineOf } from './journal-line.js';
import { reportJournals } from './report-journals.js';

/** One worker's calls: each a duration and the gap before its end, written in the order they end. */
const worker = fc.array(
  fc.record({
    gapMs: fc.integer({ min: 0, max: 120_000 }),
    durationMs: fc.integer({ min: 1, max: 600_000 }),
  }),
  {
    maxLength: 40,
  },
);

/** The worker's journal text: its calls numbered, ending in order, `at` = end less duration. */
function journalText(host: number, calls: readonly { gapMs: number; durationMs: number }[]): string {
  let end = Date.parse('2026-11-23T08:00:00Z');
  return calls
    .map((call, index) => {
      end += call.gapMs;
      const record = {
        ...PRIMARY_JUDGE_CALL,
        at: new Date(end - call.durationMs).toISOString(),
        durationMs: call.durationMs,
        costNanoUsd: 1000 + index,
        costUsd: (1000 + index) / 1e9,
        callId: `h${host}-${index}`,
        host: `h${host}`,
        pid: host,
      };
      return `${JSON.stringify(journalLineOf(record, null, undefined, index + 1))}\n`;
    })
    .join('');
}

describe('reportJournals under any interleaving', () => {
  it('counts each call once however many copies of which journals are read, in any order', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(worker, { minLength: 1, maxLength: 5 }),
        fc.array(fc.nat(), { maxLength: 6 }),
        fc.nat(),
        async (workers, copies, rotation) => {
          const texts = workers.map((calls, host) => journalText(host, calls));
          const read = [...texts.map((_, index) => index), ...copies.map((copy) => copy % texts.length)];
          const order = read.map((_, index) => read[(index + rotation) % read.length] as number);
          const figures = await reportJournals(
            order.map((index, position) => ({
              name: `j${position}`,
              source: Readable.from([Buffer.from(texts[index] as string)]),
            })),
          );
          const calls = workers.reduce((sum, one) => sum + one.length, 0);
          const cost = workers.reduce(
            (sum, one) => sum + one.reduce((part, _, index) => part + 1000 + index, 0),
            0,
          );
          expect(figures.totals.calls).toBe(calls);
          expect(figures.totals.costNanoUsd).toBe(cost);
          expect(figures.repeats.count).toBe(
            order.reduce((sum, index) => sum + (workers[index]?.length ?? 0), 0) - calls,
          );
          expect(figures.conflicts.count).toBe(0);
          expect(figures.late).toBe(0);
        },
      ),
      { numRuns: 150, seed: Number(process.env.FAST_CHECK_SEED ?? 44), verbose: true },
    );
  });
});
