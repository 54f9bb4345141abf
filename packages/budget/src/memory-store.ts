import type { AcquireRequest, AcquireResult, BudgetStore, ScopeCounters } from './budget-store.js';
import type { StoredScope } from './scope-limits.js';

interface ScopeState {
  spent: number;
  reserved: number;
  /** Live leases: amount reserved and expiry (ms on the monotonic clock). */
  readonly leases: Map<string, { amount: number; expires: number }>;
  /** No lease expires before this; a lower bound, so purges are skipped while nothing can be due. */
  earliestExpiry: number;
}

/**
 * The default store: counters in this process's memory, no dependency. Every
 * method runs synchronously, so each is atomic in one process. Limits hold for
 * this process only; use {@link RedisBudgetStore} to share them across processes.
 */
export class MemoryBudgetStore implements BudgetStore {
  readonly #scopes = new Map<string, ScopeState>();
  readonly #now: () => number;

  /** @param options.now a monotonic clock in ms (tests); default `performance.now`. */
  constructor(options: { now?: () => number } = {}) {
    this.#now = options.now ?? (() => performance.now());
  }

  acquire(request: AcquireRequest): AcquireResult {
    const now = this.#now();
    const states = request.scopes.map((scope) => this.#state(scope.key, now));
    const amount = request.amountNanoUsd;
    for (const [index, scope] of request.scopes.entries()) {
      const state = states[index] as ScopeState;
      if (scope.limitNanoUsd !== null && state.spent + state.reserved + amount > scope.limitNanoUsd) {
        return { granted: false, reason: 'spend', scopeIndex: index, counters: countersOf(state) };
      }
    }
    for (const [index, scope] of request.scopes.entries()) {
      const state = states[index] as ScopeState;
      if (scope.maxInFlight !== null && state.leases.size >= scope.maxInFlight) {
        return { granted: false, reason: 'in_flight', scopeIndex: index, counters: countersOf(state) };
      }
    }
    const expires = now + request.ttlMs;
    for (const state of states) {
      state.leases.set(request.leaseId, { amount, expires });
      state.reserved += amount;
      state.earliestExpiry = Math.min(state.earliestExpiry, expires);
    }
    return { granted: true };
  }

  settle(leaseId: string, scopes: readonly StoredScope[], actualNanoUsd: number): boolean {
    let held = true;
    for (const scope of scopes) {
      const state = this.#state(scope.key, this.#now());
      const lease = state.leases.get(leaseId);
      if (lease) {
        state.reserved -= lease.amount;
        state.leases.delete(leaseId);
      } else {
        held = false;
      }
      state.spent += actualNanoUsd;
    }
    return held;
  }

  renew(leases: readonly { leaseId: string; scopes: readonly StoredScope[] }[], ttlMs: number): string[] {
    const now = this.#now();
    const lost: string[] = [];
    for (const { leaseId, scopes } of leases) {
      let all = true;
      for (const scope of scopes) {
        const lease = this.#state(scope.key, now).leases.get(leaseId);
        if (lease) lease.expires = now + ttlMs;
        else all = false;
      }
      if (!all) lost.push(leaseId);
    }
    return lost;
  }

  counters(scopes: readonly StoredScope[]): ScopeCounters[] {
    const now = this.#now();
    return scopes.map((scope) => countersOf(this.#state(scope.key, now)));
  }

  /** The scope's state with expired leases purged (their reservation and slot returned). */
  #state(key: string, now: number): ScopeState {
    let state = this.#scopes.get(key);
    if (!state) {
      state = { spent: 0, reserved: 0, leases: new Map(), earliestExpiry: Number.POSITIVE_INFINITY };
      this.#scopes.set(key, state);
    } else if (now >= state.earliestExpiry) {
      let earliest = Number.POSITIVE_INFINITY;
      for (const [id, lease] of state.leases) {
        if (lease.expires <= now) {
          state.reserved -= lease.amount;
          state.leases.delete(id);
        } else {
          earliest = Math.min(earliest, lease.expires);
        }
      }
      state.earliestExpiry = earliest;
    }
    return state;
  }
}

function countersOf(state: ScopeState): ScopeCounters {
  return { spentNanoUsd: state.spent, reservedNanoUsd: state.reserved, inFlight: state.leases.size };
}
