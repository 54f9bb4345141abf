// Every duration option of the budget package is a number of milliseconds Node's timers can hold
// (issue 40 §10): past 2^31 − 1 a timer fires after 1 ms, so `leaseTtlMs: 1e10` renewed its leases
// about a thousand times a second and `close({ timeoutMs: 1e10 })` gave up at once. Such values are
// refused, naming the option and the largest allowed; the largest allowed works as a long wait.
import { describe, expect, it } from 'vitest';
import { createBudget } from '../src/budget.js';
import type { AcquireRequest, BudgetStore, Settlement } from '../src/budget-store.js';
import { MAX_DURATION_MS } from '../src/duration-ms.js';
import { MemoryBudgetStore } from '../src/memory-store.js';
import { RedisBudgetStore } from '../src/redis-store.js';
import type { StoredScope } from '../src/scope-limits.js';
import { attemptInfo, callRecord, DOLLAR_PER_OUTPUT_TOKEN } from './support/attempt-info.js';

const PAST = 1e10;
const pastMessage = (name: string, infinite = false) =>
  `${name} must be at most 2147483647 ms (2^31 - 1, about 24.8 days: Node's timers hold no longer)${infinite ? ', or Infinity for no limit' : ''}, got 10000000000`;

const budgetOptions = {
  scope: { name: 'durations', limitUsd: 10 },
  maxPricesOf: () => DOLLAR_PER_OUTPUT_TOKEN,
  onWarning: () => {},
};

/** A memory store whose renewals are counted and whose settlements wait until `release()`. */
class HeldStore implements BudgetStore {
  readonly #inner = new MemoryBudgetStore();
  renewals = 0;
  #release: () => void = () => {};
  readonly #released = new Promise<void>((resolve) => {
    this.#release = resolve;
  });
  settling = false;

  acquire(request: AcquireRequest) {
    return this.#inner.acquire(request);
  }
  async settle(leaseId: string, scopes: readonly StoredScope[], settlement: Settlement) {
    this.settling = true;
    await this.#released;
    return this.#inner.settle(leaseId, scopes, settlement);
  }
  renew(leases: readonly { leaseId: string; scopes: readonly StoredScope[] }[], ttlMs: number) {
    this.renewals += 1;
    return this.#inner.renew(leases, ttlMs);
  }
  counters(scopes: readonly StoredScope[]) {
    return this.#inner.counters(scopes);
  }
  release(): void {
    this.#release();
  }
}

describe('durations past what a timer holds', () => {
  it.each([
    ['leaseTtlMs', { leaseTtlMs: PAST }],
    ['slotWaitMs', { slotWaitMs: PAST }],
  ])('createBudget refuses %s: 1e10', (name, options) => {
    expect(() => createBudget({ ...budgetOptions, ...options })).toThrow(new RangeError(pastMessage(name)));
  });

  it('the stores refuse retentionMs: 1e10', () => {
    expect(() => new MemoryBudgetStore({ retentionMs: PAST })).toThrow(
      new RangeError(pastMessage('MemoryBudgetStore options.retentionMs')),
    );
    expect(() => new RedisBudgetStore({ url: 'redis://127.0.0.1:1', retentionMs: PAST })).toThrow(
      new RangeError(pastMessage('options.retentionMs')),
    );
  });

  it('RedisBudgetStore refuses commandTimeoutMs: 1e10', () => {
    expect(() => new RedisBudgetStore({ url: 'redis://127.0.0.1:1', commandTimeoutMs: PAST })).toThrow(
      new RangeError(pastMessage('options.commandTimeoutMs')),
    );
  });

  it('idle() and close() refuse timeoutMs: 1e10, and take Infinity (no limit)', async () => {
    const budget = createBudget(budgetOptions);
    await expect(budget.idle({ timeoutMs: PAST })).rejects.toThrow(
      new RangeError(pastMessage('idle: timeoutMs', true)),
    );
    await expect(budget.close({ timeoutMs: PAST })).rejects.toThrow(
      new RangeError(pastMessage('close: timeoutMs', true)),
    );
    expect(await budget.idle({ timeoutMs: Number.POSITIVE_INFINITY })).toBe(true);
    expect(await budget.close({ timeoutMs: Number.POSITIVE_INFINITY })).toBe(true);
  });

  it(`takes ${MAX_DURATION_MS} ms: a lease not renewed every millisecond, a close() that waits for its settlement`, async () => {
    const store = new HeldStore();
    const budget = createBudget({ ...budgetOptions, store, leaseTtlMs: MAX_DURATION_MS });
    const handle = await budget.beforeAttempt(attemptInfo({ maxTokens: 2 }));
    // Timers fire in the order they are due: a heartbeat every third of an overflowed TTL (1 ms)
    // would beat before this one.
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(store.renewals).toBe(0);
    const ended = handle.end({ record: callRecord(1), error: null, mayHaveBeenBilled: true });
    expect(store.settling).toBe(true);
    const closed = budget.close({ timeoutMs: MAX_DURATION_MS });
    // Released after a close() whose overflowed timeout (1 ms) would have given up first.
    setTimeout(() => store.release(), 20);
    expect(await closed).toBe(true);
    await ended;
    expect((await budget.usage())[0]).toMatchObject({ spentUsd: 1, reservedUsd: 0, inFlight: 0 });
  });
});
