// Allotments on the memory store: a process's calls reserve and settle from a share of the chain's
// headroom leased from the store (one acquisition for many calls); the share settles with what its
// calls cost when idle, on idle() and close(), when it runs out and when its window ends; a budget
// dropped without close() leaves its share to expire as a lease, at its worst case.
import { describe, expect, it } from 'vitest';
import { type Budget, createBudget } from '../src/budget.js';
import type { BudgetOptions } from '../src/budget-options.js';
import type { AcquireRequest, BudgetStore } from '../src/budget-store.js';
import { MemoryBudgetStore } from '../src/memory-store.js';
import type { BudgetThresholdEvent } from '../src/thresholds.js';
import { attemptInfo, callRecord, DOLLAR_PER_OUTPUT_TOKEN } from './support/attempt-info.js';
import { until } from './support/until.js';

/** A memory store that counts acquisitions, with a monotonic and a wall clock the test moves. */
function countingStore(start = Date.parse('2026-11-28T12:00:00Z')) {
  const time = { mono: 0, wall: start };
  const store = new MemoryBudgetStore({ now: () => time.mono, clock: () => time.wall });
  const asked: AcquireRequest[] = [];
  const acquire = store.acquire.bind(store);
  store.acquire = (request) => {
    asked.push(request);
    return acquire(request);
  };
  return { store, asked, time };
}

function budgetOn(store: MemoryBudgetStore, options: Partial<BudgetOptions> = {}): Budget {
  return createBudget({
    scope: { name: 'svc', limitUsd: 10_000 },
    store,
    allotments: true,
    maxPricesOf: () => DOLLAR_PER_OUTPUT_TOKEN,
    onWarning: () => {},
    ...options,
  });
}

async function call(budget: Budget, worstUsd: number, costUsd: number | null, role: string | null = null) {
  const handle = await budget.beforeAttempt(attemptInfo({ maxTokens: worstUsd, role }));
  await handle.end(
    costUsd === null
      ? { record: null, error: new Error('cut off'), mayHaveBeenBilled: true }
      : { record: callRecord(costUsd), error: null, mayHaveBeenBilled: true },
  );
}

describe('allotments (memory store)', () => {
  it('refuses a malformed option, naming allotments.maxUsd and what was expected', () => {
    const store = new MemoryBudgetStore();
    expect(() => budgetOn(store, { allotments: { maxUsd: -1 } })).toThrow(
      /allotments\.maxUsd must be a number of USD above 0 and at most 9000000.*got -1/,
    );
    expect(() => budgetOn(store, { allotments: { maxUsd: '5' as unknown as number } })).toThrow(TypeError);
    expect(() => budgetOn(store, { allotments: 'yes' as unknown as boolean })).toThrow(
      /allotments must be true, false or an object \{ maxUsd\? \}, got "yes"/,
    );
    expect(() => budgetOn(store, { allotments: { maxUSD: 5 } as unknown as { maxUsd: number } })).toThrow(
      /allotments: unknown option `maxUSD`; did you mean `maxUsd`\?/,
    );
    expect(() => budgetOn(store, { allotments: false })).not.toThrow();
  });

  it('serves many calls from one share: one acquisition, one settlement, the books exact', async () => {
    const { store, asked } = countingStore();
    const budget = budgetOn(store);
    for (let index = 0; index < 100; index++) await call(budget, 2, 1.25);
    expect(asked).toHaveLength(1);
    expect(asked[0]?.amountNanoUsd).toBe(64 * 2e9);
    // Before the share settles, usage() shows this process's calls, not one reservation.
    const [during] = await budget.usage();
    expect(during).toMatchObject({ spentUsd: 125, reservedUsd: 3, inFlight: 0 });
    expect(await budget.idle()).toBe(true);
    expect(store.counters([{ key: '{svc}', limitNanoUsd: null, maxInFlight: null }])).toEqual([
      expect.objectContaining({ spentNanoUsd: 125e9, reservedNanoUsd: 0, inFlight: 0, unsettledCalls: 0 }),
    ]);
    expect(await budget.close()).toBe(true);
  });

  it('counts calls of unknown cost at their worst case, as unsettled, apart from the known costs', async () => {
    const { store } = countingStore();
    const budget = budgetOn(store);
    await call(budget, 3, 1);
    await call(budget, 5, null);
    await call(budget, 4, null);
    expect(await budget.idle()).toBe(true);
    const [root] = await budget.usage();
    expect(root).toMatchObject({ spentUsd: 10, unsettledUsd: 9, reservedUsd: 0, inFlight: 0 });
    await budget.close();
  });

  it('settles an idle share by itself, and a share that cannot cover a call before the call takes the direct way', async () => {
    const { store, asked } = countingStore();
    const budget = budgetOn(store, { scope: { name: 'svc', limitUsd: 64 } });
    // 1/16 of $64: a share of $4 for calls of $2 worst case.
    await call(budget, 2, 1);
    expect(asked[0]?.amountNanoUsd).toBe(4e9);
    const root = [{ key: '{svc}', limitNanoUsd: null, maxInFlight: null }];
    await until(() => store.counters(root)[0]?.reservedNanoUsd === 0, 'the idle share settled');
    expect(store.counters(root)[0]?.spentNanoUsd).toBe(1e9);
    // A call dearer than any share (1/16 of the $63 left is below $5): reserved in the store itself.
    const held = await budget.beforeAttempt(attemptInfo({ maxTokens: 5 }));
    expect(asked.at(-1)?.amountNanoUsd).toBe(5e9);
    expect(store.counters(root)[0]).toMatchObject({ reservedNanoUsd: 5e9, inFlight: 1 });
    await held.end({ record: callRecord(5), error: null, mayHaveBeenBilled: true });
    expect(store.counters(root)[0]).toMatchObject({ spentNanoUsd: 6e9, reservedNanoUsd: 0 });
    await budget.close();
  });

  it('spends a budget to its end: never above the limit, and to within a worst case of it', async () => {
    const { store } = countingStore();
    const budget = budgetOn(store, { scope: { name: 'svc', limitUsd: 50 }, slotWaitMs: 0 });
    let refused = 0;
    for (let index = 0; index < 200; index++) {
      try {
        await call(budget, 1, 0.75);
      } catch {
        refused += 1;
      }
    }
    await budget.idle();
    const [root] = await budget.usage();
    expect(root?.spentUsd).toBeLessThanOrEqual(50);
    expect(root?.spentUsd).toBeGreaterThan(49);
    expect(refused).toBeGreaterThan(0);
    await budget.close();
  });

  it('leaves a chain with a maxInFlight limit to the direct way', async () => {
    const { store, asked } = countingStore();
    const budget = budgetOn(store, { roles: { judge: { maxInFlight: 4 } } });
    await call(budget, 2, 1, 'judge');
    await call(budget, 2, 1, 'judge');
    expect(asked.map((request) => request.amountNanoUsd)).toEqual([2e9, 2e9]);
    await call(budget, 2, 1);
    expect(asked).toHaveLength(3);
    await budget.close();
  });

  it('a budget dropped without close(): its share is reserved until its lease expires, then counted at its worst case', async () => {
    const { store, time } = countingStore();
    const dropped = budgetOn(store, { leaseTtlMs: 1_000 });
    // A call in flight and one ended: neither settled in the store.
    await call(dropped, 2, 1);
    await dropped.beforeAttempt(attemptInfo({ maxTokens: 2 }));
    const root = [{ key: '{svc}', limitNanoUsd: null, maxInFlight: null }];
    expect(store.counters(root)[0]).toMatchObject({ spentNanoUsd: 0, reservedNanoUsd: 128e9, inFlight: 1 });
    // Never closed, and its heartbeat's next beat (in a third of the TTL, real time) not yet due.
    time.mono += 1_001;
    expect(store.counters(root)[0]).toMatchObject({
      inFlight: 0,
      reservedNanoUsd: 0,
      spentNanoUsd: 128e9,
      unsettledNanoUsd: 128e9,
    });
  });

  it('a share serves no call after its window ends: the next call leases one in the new window', async () => {
    const { store, asked, time } = countingStore(Date.parse('2026-11-28T23:59:59Z'));
    const budget = budgetOn(store, { scope: { name: 'svc', limitUsd: 1000, window: 'day' } });
    await call(budget, 2, 1);
    time.wall = Date.parse('2026-11-29T00:00:01Z');
    await call(budget, 2, 1);
    expect(asked.map((request) => request.scopes[0]?.key)).toEqual([
      '{svc}{2026-11-28T00:00:00.000Z}',
      '{svc}{2026-11-29T00:00:00.000Z}',
    ]);
    await budget.idle();
    const day = (start: string) => [{ key: `{svc}{${start}}`, limitNanoUsd: null, maxInFlight: null }];
    expect(store.counters(day('2026-11-28T00:00:00.000Z'))[0]?.spentNanoUsd).toBe(1e9);
    expect(store.counters(day('2026-11-29T00:00:00.000Z'))[0]?.spentNanoUsd).toBe(1e9);
    await budget.close();
  });

  it('fires thresholds once, when the share that reached them settles', async () => {
    const { store } = countingStore();
    const events: BudgetThresholdEvent[] = [];
    const budget = budgetOn(store, {
      scope: { name: 'svc', limitUsd: 160 },
      onThreshold: (event) => events.push(event),
    });
    for (let index = 0; index < 140; index++) await call(budget, 1, 1);
    await budget.idle();
    expect(events.map((event) => [event.scope, event.fraction])).toEqual([['svc', 0.8]]);
    await budget.close();
  });
  it('a fallback knows what was left from the shares the store granted, when the store becomes unreachable', async () => {
    const memory = new MemoryBudgetStore();
    let down = false;
    const unreachable = () => Promise.reject(new Error('connect ECONNREFUSED 127.0.0.1:1'));
    // A shared store's replies (counters with a grant), and its outage.
    const store: BudgetStore = {
      acquire: (request) => {
        if (down) return unreachable();
        const result = memory.acquire(request);
        return result.granted ? { granted: true, counters: memory.counters(request.scopes) } : result;
      },
      settle: (leaseId, scopes, settlement) =>
        down ? unreachable() : memory.settle(leaseId, scopes, settlement),
      renew: (leases, ttlMs) => (down ? unreachable() : memory.renew(leases, ttlMs)),
      counters: (scopes) => (down ? unreachable() : memory.counters(scopes)),
    };
    const warnings: string[] = [];
    const budget = createBudget({
      scope: { name: 'svc', limitUsd: 160 },
      store,
      allotments: true,
      fallback: { share: 0.5 },
      maxPricesOf: () => DOLLAR_PER_OUTPUT_TOKEN,
      onWarning: (message) => warnings.push(message),
    });
    // Served by a share of $10 (1/16 of $160): the store answered only that share's lease.
    await call(budget, 2, 1);
    down = true;
    // $20 fits no share: the direct way, on the fallback, within half of what the store last showed left.
    const handle = await budget.beforeAttempt(attemptInfo({ maxTokens: 20 }));
    await handle.end({ record: callRecord(5), error: null, mayHaveBeenBilled: true });
    expect(warnings.some((warning) => /using the fallback store$/.test(warning))).toBe(true);
    down = false;
    expect(await budget.idle()).toBe(true);
    const root = [{ key: '{svc}', limitNanoUsd: null, maxInFlight: null }];
    expect(memory.counters(root)[0]).toMatchObject({ spentNanoUsd: 6e9, reservedNanoUsd: 0, inFlight: 0 });
    await budget.close();
  });
  it('a share whose lease a renewal finds expired takes no more calls: the next call leases a new one', async () => {
    const { store, asked, time } = countingStore();
    const warnings: string[] = [];
    const budget = budgetOn(store, { leaseTtlMs: 60, onWarning: (message) => warnings.push(message) });
    const first = await budget.beforeAttempt(attemptInfo({ maxTokens: 2 }));
    // The store's clock passes the lease's expiry between two renewals (a stalled process, as the store sees it).
    time.mono += 61;
    await until(() => warnings.some((warning) => /expired while their calls ran/.test(warning)), 'a renewal');
    await call(budget, 2, 1);
    expect(asked).toHaveLength(2);
    await first.end({ record: callRecord(1.5), error: null, mayHaveBeenBilled: true });
    expect(await budget.idle()).toBe(true);
    // The first share's worst case, counted when it expired, was replaced by what its call cost.
    const root = [{ key: '{svc}', limitNanoUsd: null, maxInFlight: null }];
    expect(store.counters(root)[0]).toMatchObject({
      spentNanoUsd: 2.5e9,
      reservedNanoUsd: 0,
      unsettledCalls: 0,
    });
    expect(warnings.some((warning) => /a budget share had expired before it was settled/.test(warning))).toBe(
      true,
    );
    await budget.close();
  });
  it("gives each tenant's chain a share of its own, within the tenant's limit", async () => {
    const { store, asked } = countingStore();
    const budget = budgetOn(store, { tenants: { limitUsd: 16 }, slotWaitMs: 0 });
    const spend = async (tenant: string) => {
      let spent = 0;
      for (;;) {
        try {
          const handle = await budget.beforeAttempt(attemptInfo({ maxTokens: 1, tenant }));
          await handle.end({ record: callRecord(1), error: null, mayHaveBeenBilled: true });
          spent += 1;
        } catch (error) {
          expect(error).toMatchObject({ reason: 'spend', scope: `svc/${tenant}` });
          return spent;
        }
      }
    };
    expect(await spend('acme')).toBe(16);
    await call(budget, 1, 1);
    expect(await budget.idle()).toBe(true);
    expect((await budget.usage(null, 'acme'))[1]).toMatchObject({ spentUsd: 16, reservedUsd: 0 });
    expect((await budget.usage(null, 'globex'))[1]).toMatchObject({ spentUsd: 0 });
    // Shares of 1/16 of the tenant's headroom: the first of $1, each call's own when it is all that is left.
    expect(asked[0]?.scopes.map((scope) => scope.key)).toEqual(['{svc}', '{svc}/acme']);
    expect(asked.every((request) => request.amountNanoUsd <= 1e9 || request.scopes.length === 1)).toBe(true);
    await budget.close();
  });
});
