import { expect } from 'vitest';
import { type Budget, createBudget } from '../../src/budget.js';
import type { BudgetStore } from '../../src/budget-store.js';
import { type BudgetScopeListing, listBudgetScopes } from '../../src/show/scope-listing.js';
import { attemptInfo, callRecord, DOLLAR_PER_OUTPUT_TOKEN } from './attempt-info.js';
import { heapAfterGc } from './heap-after-gc.js';
import { until } from './until.js';

/**
 * What `budget show` is tested on, spent through real budgets on `store`: a root `svc` ($100) with a
 * role `judge` ($20) where a call settled at $3, a call counted unsettled at its worst case ($4), and a
 * call still in flight holding $2; a daily scope `daily` ($50) where a call settled at $1.50 in the
 * current window. Returns the budgets, to be closed, and the lease in flight, to be ended.
 */
export async function spendForShow(
  store: BudgetStore,
): Promise<{ budgets: Budget[]; inFlight: Awaited<ReturnType<Budget['beforeAttempt']>> }> {
  const options = {
    store,
    maxPricesOf: () => DOLLAR_PER_OUTPUT_TOKEN,
    waitForSettlements: false,
    onWarning: () => {},
  };
  const service = createBudget({
    ...options,
    scope: { name: 'svc', limitUsd: 100 },
    roles: { judge: { limitUsd: 20 } },
  });
  const daily = createBudget({ ...options, scope: { name: 'daily', limitUsd: 50, window: 'day' } });
  const judged = await service.beforeAttempt(attemptInfo({ role: 'judge', maxTokens: 5 }));
  await judged.end({ record: callRecord(3), error: null, mayHaveBeenBilled: true });
  const lost = await service.beforeAttempt(attemptInfo({ maxTokens: 4 }));
  await lost.end({ record: null, error: new Error('the connection was reset'), mayHaveBeenBilled: true });
  const inFlight = await service.beforeAttempt(attemptInfo({ maxTokens: 2 }));
  const today = await daily.beforeAttempt(attemptInfo({ maxTokens: 2 }));
  await today.end({ record: callRecord(1.5), error: null, mayHaveBeenBilled: true });
  return { budgets: [service, daily], inFlight };
}

/** What every store lists for {@link spendForShow}, the daily scope's window aside. */
export const SHOWN = {
  svc: { scope: 'svc', spentUsd: 7, reservedUsd: 2, inFlight: 1, unsettledUsd: 4, window: null, past: [] },
  judge: {
    scope: 'svc/judge',
    spentUsd: 3,
    reservedUsd: 0,
    inFlight: 0,
    unsettledUsd: 0,
    window: null,
    past: [],
  },
  daily: { scope: 'daily', spentUsd: 1.5, reservedUsd: 0, inFlight: 0, unsettledUsd: 0 },
} as const;

/**
 * Lists `listings` to the end: how many, their spend summed in nano-dollars, and the most heap kept
 * (after a full collection, over the heap before) at every 25,000th listing.
 */
export async function listAll(
  listings: AsyncIterable<BudgetScopeListing>,
): Promise<{ count: number; spentNanoUsd: number; peakBytes: number }> {
  const base = await heapAfterGc();
  let count = 0;
  let total = 0;
  let peak = 0;
  for await (const listing of listings) {
    count++;
    total += listing.spentUsd;
    if (count % 25_000 === 0) peak = Math.max(peak, (await heapAfterGc()) - base);
  }
  return { count, spentNanoUsd: Math.round(total * 1e9), peakBytes: peak };
}

/** `list(scope)` (a listing with `scope`) finds the role alone, the daily scope with its past windows, and no other. */
export async function expectScopeFilter(
  list: (scope: string) => Promise<BudgetScopeListing[]>,
): Promise<void> {
  expect(await list('svc/judge')).toEqual([SHOWN.judge]);
  const [daily, ...more] = await list('daily');
  expect(more).toEqual([]);
  expect(daily?.past.map((window) => window.spentUsd)).toEqual([0.5, 2]);
  expect(await list('nowhere')).toEqual([]);
}

/**
 * A lease that expires unsettled in the root `expiring` ($1, a 100 ms lease): `list()` shows it in flight,
 * then, once expired and before any process swept it, as the store's next operation counts it (unsettled
 * spend, nothing reserved); the store's own counters (which sweep) then agree.
 */
export async function expectExpiredLeaseCounted(
  store: BudgetStore,
  list: () => Promise<BudgetScopeListing[]>,
): Promise<void> {
  const scope = { key: '{expiring}', limitNanoUsd: null, maxInFlight: null };
  const granted = await store.acquire({
    leaseId: 'show-expiring',
    scopes: [scope],
    amountNanoUsd: 1e9,
    ttlMs: 100,
  });
  expect(granted.granted).toBe(true);
  const swept = {
    scope: 'expiring',
    spentUsd: 1,
    reservedUsd: 0,
    inFlight: 0,
    unsettledUsd: 1,
    window: null,
    past: [],
  };
  const [held] = await list();
  // Shown in flight, unless the machine was slow enough for it to expire already.
  if (held?.inFlight === 1) expect(held).toMatchObject({ spentUsd: 0, reservedUsd: 1, unsettledUsd: 0 });
  else expect(held).toEqual(swept);
  await until(async () => (await list())[0]?.inFlight === 0, 'the lease expired');
  expect(await list()).toEqual([swept]);
  const [counters] = await store.counters([scope]);
  expect(counters).toMatchObject({
    spentNanoUsd: 1e9,
    reservedNanoUsd: 0,
    inFlight: 0,
    unsettledNanoUsd: 1e9,
  });
  expect(await list()).toEqual([swept]);
}

/** Every listing of `listBudgetScopes(options)`, by scope name. */
export async function listed(options: Parameters<typeof listBudgetScopes>[0]): Promise<BudgetScopeListing[]> {
  const found: BudgetScopeListing[] = [];
  for await (const listing of listBudgetScopes(options)) found.push(listing);
  return found.sort((a, b) => a.scope.localeCompare(b.scope));
}
