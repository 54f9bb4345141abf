// Allotments never bend the books (a property over random runs): a few processes (budgets on one
// MemoryBudgetStore whose monotonic and wall clocks the run moves) with `allotments` on, random share
// caps, random calls (worst cases, roles, outcomes: a known cost, an unknown one billed up to its worst
// case, none), process deaths (a budget dropped without close(), its store gone silent, the calls it had
// in flight billed), leases expiring, idle() and windows passing. After every step: no scope window's
// spend passes its limit, and the books (spend and reservations) are never below what was billed; each
// threshold fires at most once per scope window. At the end, every lease expired or settled: spend alone
// is at least the bill. Seeded: ALLOTMENTS_SEED=<n> replays a run, ALLOTMENTS_RUNS=<n> runs more; fast-check
// prints the seed on failure.
import type { AttemptHandle } from '@switchboard/adapter';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type Budget, createBudget } from '../src/budget.js';
import type { BudgetStore } from '../src/budget-store.js';
import { MemoryBudgetStore } from '../src/memory-store.js';
import type { StoredScope } from '../src/scope-limits.js';
import { windowKey } from '../src/scope-windows.js';
import type { BudgetThresholdEvent } from '../src/thresholds.js';
import { attemptInfo, callRecord, DOLLAR_PER_OUTPUT_TOKEN } from './support/attempt-info.js';

const RUNS = Number(process.env.ALLOTMENTS_RUNS ?? 150);
const SEED = process.env.ALLOTMENTS_SEED === undefined ? undefined : Number(process.env.ALLOTMENTS_SEED);
const TTL_MS = 1_000;
const HOUR_MS = 3_600_000;
const ROOT_LIMIT = 30;
const ROLE_LIMIT = 12;

type Step =
  | { readonly kind: 'call'; readonly process: number; readonly worst: number; readonly role: string | null }
  | {
      readonly kind: 'end';
      readonly pick: number;
      readonly outcome: 'exact' | 'unknown' | 'none';
      readonly share: number;
    }
  | { readonly kind: 'kill'; readonly process: number; readonly billed: number }
  | { readonly kind: 'idle'; readonly process: number }
  | { readonly kind: 'expire'; readonly ms: number }
  | { readonly kind: 'window'; readonly ms: number };

const step: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 8,
    arbitrary: fc.record({
      kind: fc.constant('call' as const),
      process: fc.nat(3),
      worst: fc.integer({ min: 1, max: 8 }),
      role: fc.constantFrom(null, 'judge', 'slots'),
    }),
  },
  {
    weight: 7,
    arbitrary: fc.record({
      kind: fc.constant('end' as const),
      pick: fc.nat(),
      outcome: fc.constantFrom('exact', 'exact', 'unknown', 'none'),
      share: fc.double({ min: 0, max: 1, noNaN: true }),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('kill' as const),
      process: fc.nat(3),
      billed: fc.double({ min: 0, max: 1, noNaN: true }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('idle' as const), process: fc.nat(3) }) },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('expire' as const),
      ms: fc.integer({ min: 1, max: 2 * TTL_MS }),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant('window' as const), ms: fc.integer({ min: 1, max: HOUR_MS }) }),
  },
);

const run = fc.record({
  steps: fc.array(step, { minLength: 20, maxLength: 120 }),
  maxUsd: fc.array(fc.option(fc.integer({ min: 1, max: 60 }), { nil: undefined }), {
    minLength: 4,
    maxLength: 4,
  }),
});

/** A process: its budget, its store's door (shut when it dies), and its calls in flight. */
interface Process {
  budget: Budget;
  alive: boolean;
  calls: { handle: AttemptHandle; worst: number }[];
}

/** `store` as one process reaches it: once `dead()`, nothing it sends arrives, and nothing answers. */
function door(store: MemoryBudgetStore, dead: () => boolean): BudgetStore {
  const silent = () => new Promise<never>(() => {});
  return {
    acquire: (request) => (dead() ? silent() : store.acquire(request)),
    settle: (leaseId, scopes, settlement) => (dead() ? silent() : store.settle(leaseId, scopes, settlement)),
    renew: (leases, ttlMs) => (dead() ? silent() : store.renew(leases, ttlMs)),
    counters: (scopes) => (dead() ? silent() : store.counters(scopes)),
    clockMs: () => store.clockMs(),
    markThresholds: (scopes, levels) => (dead() ? silent() : store.markThresholds(scopes, levels)),
  };
}

describe('allotments keep the books (property, memory store)', () => {
  it(`spend never above a limit, books never below the bill, thresholds once, over ${RUNS} seeded runs`, async () => {
    await fc.assert(
      fc.asyncProperty(run, async ({ steps, maxUsd }) => {
        const time = { mono: 0, wall: Date.parse('2026-11-28T10:30:00Z') };
        const store = new MemoryBudgetStore({ now: () => time.mono, clock: () => time.wall });
        const fired = new Set<string>();
        const events: BudgetThresholdEvent[] = [];
        const processes: Process[] = maxUsd.map((cap) => {
          const own: Process = { budget: null as unknown as Budget, alive: true, calls: [] };
          own.budget = createBudget({
            scope: { name: 'svc', limitUsd: ROOT_LIMIT, window: 'hour' },
            roles: { judge: { limitUsd: ROLE_LIMIT }, slots: { maxInFlight: 3 } },
            store: door(store, () => !own.alive),
            allotments: cap === undefined ? true : { maxUsd: cap },
            leaseTtlMs: TTL_MS,
            slotWaitMs: 0,
            thresholds: [0.5, 0.8, 1],
            onThreshold: (event) => events.push(event),
            maxPricesOf: () => DOLLAR_PER_OUTPUT_TOKEN,
            onWarning: () => {},
          });
          return own;
        });
        /** Every scope window the run may have touched: the root's and the judge's, per hour seen. */
        const hours = new Set<number>();
        let billNanoUsd = 0;
        const rootOf = (hour: number): StoredScope[] => [
          { key: windowKey('{svc}', hour), limitNanoUsd: null, maxInFlight: null },
        ];
        const rootRows = () => [...hours].map((hour) => store.counters(rootOf(hour))[0]);
        const check = () => {
          let books = 0;
          for (const row of rootRows()) {
            expect(row?.spentNanoUsd).toBeLessThanOrEqual(ROOT_LIMIT * 1e9);
            books += (row?.spentNanoUsd ?? 0) + (row?.reservedNanoUsd ?? 0);
          }
          const [judge] = store.counters([{ key: '{svc}/judge', limitNanoUsd: null, maxInFlight: null }]);
          expect(judge?.spentNanoUsd).toBeLessThanOrEqual(ROLE_LIMIT * 1e9);
          expect(books).toBeGreaterThanOrEqual(billNanoUsd);
          for (const event of events.splice(0)) {
            const id = `${event.scope} ${event.window?.start} ${event.fraction}`;
            expect(fired.has(id), `${id} fired twice`).toBe(false);
            fired.add(id);
            expect(event.spentUsd).toBeGreaterThanOrEqual(event.fraction * event.limitUsd - 1e-9);
          }
        };
        const hourOf = (wall: number) => wall - (wall % HOUR_MS);
        hours.add(hourOf(time.wall));
        for (const each of steps) {
          switch (each.kind) {
            case 'call': {
              const own = processes[each.process] as Process;
              if (!own.alive) break;
              try {
                const handle = await own.budget.beforeAttempt(
                  attemptInfo({ maxTokens: each.worst, role: each.role }),
                );
                own.calls.push({ handle, worst: each.worst });
              } catch (error) {
                expect((error as { kind?: string }).kind).toBe('budget');
              }
              break;
            }
            case 'end': {
              const live = processes.filter((own) => own.alive && own.calls.length > 0);
              const own = live[each.pick % Math.max(1, live.length)];
              if (own === undefined) break;
              const [call] = own.calls.splice(each.pick % own.calls.length, 1);
              if (call === undefined) break;
              const cost = Math.round(call.worst * each.share * 1e6) / 1e6;
              if (each.outcome === 'exact') {
                billNanoUsd += Math.round(cost * 1e9);
                await call.handle.end({ record: callRecord(cost), error: null, mayHaveBeenBilled: true });
              } else if (each.outcome === 'unknown') {
                billNanoUsd += Math.round(cost * 1e9);
                await call.handle.end({ record: null, error: new Error('cut off'), mayHaveBeenBilled: true });
              } else {
                await call.handle.end({
                  record: null,
                  error: new Error('refused'),
                  mayHaveBeenBilled: false,
                });
              }
              break;
            }
            case 'kill': {
              const own = processes[each.process] as Process;
              if (!own.alive) break;
              own.alive = false;
              // Its calls in flight may have been billed, up to their worst case; nothing of it reaches the store.
              for (const call of own.calls.splice(0))
                billNanoUsd += Math.floor(call.worst * each.billed * 1e9);
              break;
            }
            case 'idle': {
              const own = processes[each.process] as Process;
              if (own.alive) await own.budget.idle();
              break;
            }
            case 'expire':
              time.mono += each.ms;
              break;
            case 'window':
              time.wall += each.ms;
              hours.add(hourOf(time.wall));
              break;
          }
          check();
        }
        // The end: the living end their calls (unknown cost) and close; every other lease expires.
        for (const own of processes) {
          if (!own.alive) continue;
          for (const call of own.calls.splice(0)) {
            billNanoUsd += call.worst * 1e9;
            await call.handle.end({ record: null, error: new Error('cut off'), mayHaveBeenBilled: true });
          }
          await own.budget.close();
        }
        time.mono += 2 * TTL_MS;
        check();
        const rows = rootRows();
        expect(rows.every((row) => row?.reservedNanoUsd === 0 && row.inFlight === 0)).toBe(true);
        const spent = rows.reduce((sum, row) => sum + (row?.spentNanoUsd ?? 0), 0);
        expect(spent).toBeGreaterThanOrEqual(billNanoUsd);
      }),
      { numRuns: RUNS, ...(SEED === undefined ? {} : { seed: SEED }), endOnFailure: true },
    );
  }, 120_000);
});
