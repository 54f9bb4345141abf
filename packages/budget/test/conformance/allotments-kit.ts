// The conformance kit's budget cases: a budget over the store under test, with `allotments` off and on.
// Two budgets on two stores of one ledger (two processes' view) spend a budget to its end: never above
// the limit, to within a worst case of it, the books exactly the calls' costs. With allotments on, a
// share whose process goes silent (its store connection gone, as in a death) stays reserved until its
// lease expires, then counts at its worst case, unsettled. Registered by `describeStoreConformance`.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { type Budget, createBudget } from '../../src/budget.js';
import type { BudgetStore } from '../../src/budget-store.js';
import { attemptInfo, callRecord, DOLLAR_PER_OUTPUT_TOKEN } from '../support/attempt-info.js';
import { withoutLedgerLost } from '../support/scope-counters.js';
import { until } from '../support/until.js';

/** What the cases need of a conformance target. */
interface Target {
  create(): BudgetStore;
}

const LIMIT_USD = 60;

function budgetOf(store: BudgetStore, name: string, allotments: boolean, leaseTtlMs = 30_000): Budget {
  return createBudget({
    store,
    scope: { name, limitUsd: LIMIT_USD },
    allotments,
    leaseTtlMs,
    maxPricesOf: () => DOLLAR_PER_OUTPUT_TOKEN,
    onWarning: () => {},
  });
}

/** Calls of worst case 1 to 3 USD, costing half of it, until the budget refuses one for spend; their cost in nano-USD. */
async function spendToTheEnd(budget: Budget): Promise<number> {
  let spent = 0;
  for (let call = 0; ; call++) {
    const worst = 1 + (call % 3);
    try {
      const handle = await budget.beforeAttempt(attemptInfo({ maxTokens: worst }));
      await handle.end({ record: callRecord(worst / 2), error: null, mayHaveBeenBilled: true });
      spent += (worst / 2) * 1e9;
    } catch (error) {
      if ((error as { reason?: string }).reason === 'spend') return spent;
      throw error;
    }
  }
}

export function describeAllotmentsConformance(target: Target): void {
  const run = randomUUID().slice(0, 8);
  let scopes = 0;
  const nameOf = () => `kit-allot-${run}-${++scopes}`;
  const rootOf = (name: string) => [{ key: `{${name}}`, limitNanoUsd: null, maxInFlight: null }];

  describe('budgets over the store', () => {
    for (const allotments of [false, true]) {
      it(`allotments ${allotments ? 'on' : 'off'}: two processes spend a budget to its end, never past it, the books exact`, async () => {
        const name = nameOf();
        const budgets = [
          budgetOf(target.create(), name, allotments),
          budgetOf(target.create(), name, allotments),
        ];
        const lanes = budgets.flatMap((budget) => [spendToTheEnd(budget), spendToTheEnd(budget)]);
        const costs = (await Promise.all(lanes)).reduce((sum, cost) => sum + cost, 0);
        for (const budget of budgets) expect(await budget.close()).toBe(true);
        const [root] = withoutLedgerLost(await target.create().counters(rootOf(name)));
        expect(root).toMatchObject({
          spentNanoUsd: costs,
          reservedNanoUsd: 0,
          inFlight: 0,
          unsettledCalls: 0,
        });
        expect(root?.spentNanoUsd).toBeLessThanOrEqual(LIMIT_USD * 1e9);
        // Each lane stopped only when less than its call's worst case (at most 3 USD) was left.
        expect(root?.spentNanoUsd).toBeGreaterThan((LIMIT_USD - 3) * 1e9);
      });
    }

    it('allotments on: a share whose process went silent is reserved until its lease expires, then counts at its worst case, unsettled', async () => {
      const name = nameOf();
      const store = target.create();
      let silent = false;
      const never = () => new Promise<never>(() => {});
      // The process's connection: once silent, nothing it sends arrives (a death, as the store sees it).
      const door: BudgetStore = {
        acquire: (request) => (silent ? never() : store.acquire(request)),
        settle: (leaseId, at, settlement) => (silent ? never() : store.settle(leaseId, at, settlement)),
        renew: (leases, ttlMs) => (silent ? never() : store.renew(leases, ttlMs)),
        counters: (at) => (silent ? never() : store.counters(at)),
      };
      const budget = budgetOf(door, name, true, 1_500);
      await budget.beforeAttempt(attemptInfo({ maxTokens: 2 }));
      // A share of 1/16 of the limit: 3.75 USD, one call of it in flight.
      const share = (LIMIT_USD / 16) * 1e9;
      const reader = target.create();
      const [held] = withoutLedgerLost(await reader.counters(rootOf(name)));
      expect((held?.reservedNanoUsd ?? 0) + (held?.spentNanoUsd ?? 0)).toBe(share);
      expect((held?.inFlight ?? 0) + (held?.unsettledCalls ?? 0)).toBe(1);
      silent = true;
      await until(
        async () => withoutLedgerLost(await reader.counters(rootOf(name)))[0]?.inFlight === 0,
        'the silent share expiring',
        { everyMs: 100 },
      );
      expect(withoutLedgerLost(await reader.counters(rootOf(name)))[0]).toMatchObject({
        spentNanoUsd: share,
        reservedNanoUsd: 0,
        unsettledNanoUsd: share,
        unsettledCalls: 1,
      });
    });
  });
}
