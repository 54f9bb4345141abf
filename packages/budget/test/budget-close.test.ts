// close() ends a budget for good (issue 40 §11): a call still waiting for a slot or for room is
// refused at once rather than left to wait out slotWaitMs after close() resolved, every later call is
// refused without reaching the store, and a lease the store grants after close() is released.
// BudgetRefusal has no reason of its own for this: the refusal is `store_unreachable`, as a closed
// store's is, with a message saying the budget was closed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBudget } from '../src/budget.js';
import type { AcquireRequest, BudgetStore, Settlement } from '../src/budget-store.js';
import { MemoryBudgetStore } from '../src/memory-store.js';
import type { StoredScope } from '../src/scope-limits.js';
import { attemptInfo, callRecord, DOLLAR_PER_OUTPUT_TOKEN } from './support/attempt-info.js';
import { memoryStores, postgresStores, redisStores } from './support/store-factories.js';
import { until } from './support/until.js';

const CLOSED = /^budget scope "[^"]+" refused the call: the budget was closed \(close\(\)\)/;

/** A store that counts what reaches it, and whose acquisitions can be held until `release()`. */
class CountingStore implements BudgetStore {
  readonly inner: BudgetStore;
  acquisitions = 0;
  #hold: Promise<void> | null = null;
  #release: () => void = () => {};
  entered = 0;

  constructor(inner: BudgetStore) {
    this.inner = inner;
  }
  /** Acquisitions from now on wait until `release()`. */
  hold(): void {
    this.#hold = new Promise((resolve) => {
      this.#release = resolve;
    });
  }
  release(): void {
    this.#release();
  }
  async acquire(request: AcquireRequest) {
    this.acquisitions += 1;
    if (this.#hold !== null) {
      this.entered += 1;
      await this.#hold;
    }
    return this.inner.acquire(request);
  }
  async settle(leaseId: string, scopes: readonly StoredScope[], settlement: Settlement) {
    return this.inner.settle(leaseId, scopes, settlement);
  }
  async renew(leases: readonly { leaseId: string; scopes: readonly StoredScope[] }[], ttlMs: number) {
    return this.inner.renew(leases, ttlMs);
  }
  async counters(scopes: readonly StoredScope[]) {
    return this.inner.counters(scopes);
  }
}

describe.each([memoryStores(), redisStores(), postgresStores()])('Budget.close() on $name', (factory) => {
  beforeAll(() => factory.setUp());
  afterAll(() => factory.tearDown());
  let runs = 0;

  function budgetOn(store: BudgetStore) {
    runs += 1;
    return createBudget({
      store,
      scope: { name: `close-${runs}`, limitUsd: 10, maxInFlight: 1 },
      maxPricesOf: () => DOLLAR_PER_OUTPUT_TOKEN,
      // Far longer than the test: only close() can end the wait.
      slotWaitMs: 600_000,
      onWarning: () => {},
    });
  }

  it('refuses a call waiting for a slot before close() resolves, and every call after it without asking the store', async () => {
    const store = new CountingStore(factory.create());
    const budget = budgetOn(store);
    const child = budget.child({ name: 'judge' });
    const running = await budget.beforeAttempt(attemptInfo({ maxTokens: 2 }));
    const events: string[] = [];
    const waiting = Promise.resolve(child.beforeAttempt(attemptInfo({ maxTokens: 1 }))).then(
      () => events.push('waiter granted'),
      (error: unknown) => {
        events.push('waiter refused');
        return error;
      },
    );
    // The waiter asked the store and was told no (the slot is taken): it waits in line.
    await until(() => store.acquisitions >= 2, 'the waiter asking the store');
    const closed = budget.close({ timeoutMs: 60_000 }).then((flushed) => {
      events.push('closed');
      return flushed;
    });
    expect(await closed).toBe(true);
    expect(events).toEqual(['waiter refused', 'closed']);
    const refusal = await waiting;
    expect(refusal).toMatchObject({ kind: 'budget', reason: 'store_unreachable', retryable: false });
    expect(String((refusal as Error).message)).toMatch(CLOSED);

    const asked = store.acquisitions;
    for (const view of [budget, child]) {
      await expect(Promise.resolve(view.beforeAttempt(attemptInfo({ maxTokens: 1 })))).rejects.toMatchObject({
        reason: 'store_unreachable',
        message: expect.stringMatching(CLOSED),
      });
    }
    expect(store.acquisitions).toBe(asked);
    await running.end({ record: callRecord(1.5), error: null, mayHaveBeenBilled: true });
  });

  it('releases a lease the store grants after close(), and close() waits for that release', async () => {
    const store = new CountingStore(factory.create());
    const budget = budgetOn(store);
    store.hold();
    const asking = Promise.resolve(budget.beforeAttempt(attemptInfo({ maxTokens: 3 }))).catch(
      (error: unknown) => error,
    );
    await until(() => store.entered === 1, 'the acquisition reaching the store');
    const closed = budget.close({ timeoutMs: 60_000 });
    store.release();
    expect(await closed).toBe(true);
    expect(await asking).toMatchObject({
      reason: 'store_unreachable',
      message: expect.stringMatching(CLOSED),
    });
    const [root] = await store.inner.counters([
      { key: `{close-${runs}}`, limitNanoUsd: null, maxInFlight: null },
    ]);
    expect(root).toMatchObject({ spentNanoUsd: 0, reservedNanoUsd: 0, inFlight: 0 });
  });
});

describe('Budget.close() of a budget whose store it owns', () => {
  it('refuses later calls as closed, not with the closed store’s own error', async () => {
    const budget = createBudget({
      store: new MemoryBudgetStore(),
      ownsStore: true,
      scope: { name: 'owned', limitUsd: 1 },
      maxPricesOf: () => DOLLAR_PER_OUTPUT_TOKEN,
    });
    expect(await budget.close()).toBe(true);
    await expect(Promise.resolve(budget.beforeAttempt(attemptInfo()))).rejects.toMatchObject({
      reason: 'store_unreachable',
      message: expect.stringMatching(CLOSED),
    });
  });
});
