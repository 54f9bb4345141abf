import type {
  AcquireRequest,
  AcquireResult,
  BudgetStore,
  ScopeCounters,
  Settlement,
} from './budget-store.js';
import type { StoredScope } from './scope-limits.js';

interface ScopeState {
  spent: number;
  reserved: number;
  unsettled: number;
  /** Live leases: amount reserved and expiry (ms on the monotonic clock). */
  readonly leases: Map<string, { amount: number; expires: number }>;
  /** Leases that expired unsettled: their worst case, counted in `spent` and `unsettled`. */
  readonly expired: Map<string, number>;
  /** No lease expires before this; a lower bound, so purges are skipped while nothing can be due. */
  earliestExpiry: number;
}

/** How long an ended lease id is remembered, so a repeated settlement or acquisition changes nothing (ms). */
const ENDED_RETENTION_MS = 600_000;

/**
 * The default store: counters in this process's memory, no dependency. Every
 * method runs synchronously, so each is atomic in one process. Limits hold for
 * this process only; use {@link RedisBudgetStore} to share them across processes.
 */
export class MemoryBudgetStore implements BudgetStore {
  readonly #scopes = new Map<string, ScopeState>();
  /** Lease ids taken (`true`) or ended (their answer), with when they were last touched. */
  readonly #ids = new Map<string, { ended: boolean | null; at: number }>();
  readonly #now: () => number;
  #pruned = 0;

  /** @param options.now a monotonic clock in ms (tests); default `performance.now`. */
  constructor(options: { now?: () => number } = {}) {
    this.#now = options.now ?? (() => performance.now());
  }

  acquire(request: AcquireRequest): AcquireResult {
    const now = this.#now();
    this.#prune(now);
    const states = request.scopes.map((scope) => this.#state(scope.key, now));
    const known = this.#ids.get(request.leaseId);
    if (known !== undefined) {
      if (known.ended === null) return { granted: true, counters: states.map(countersOf) };
      return {
        granted: false,
        reason: 'ended',
        scopeIndex: 0,
        counters: countersOf(states[0] as ScopeState),
      };
    }
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
    this.#ids.set(request.leaseId, { ended: null, at: now });
    return { granted: true, counters: states.map(countersOf) };
  }

  settle(leaseId: string, scopes: readonly StoredScope[], settlement: Settlement): boolean {
    const now = this.#now();
    const known = this.#ids.get(leaseId);
    if (known !== undefined && known.ended !== null) return known.ended;
    const actual = settlement.actualNanoUsd;
    let held = known !== undefined;
    for (const scope of scopes) {
      const state = this.#state(scope.key, now);
      const lease = state.leases.get(leaseId);
      if (lease) {
        state.reserved -= lease.amount;
        state.leases.delete(leaseId);
      } else {
        held = false;
        const worst = state.expired.get(leaseId);
        if (worst !== undefined) {
          state.spent -= worst;
          state.unsettled -= worst;
          state.expired.delete(leaseId);
        }
      }
      state.spent += actual;
      if (settlement.unsettled === true) {
        state.unsettled += actual;
        state.expired.set(leaseId, actual);
      }
    }
    this.#ids.set(leaseId, { ended: held, at: now });
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

  /** Nothing to do: a ledger in this process's memory cannot be lost while the process lives. */
  resetLedger(): void {}

  /** Forgets ended lease ids older than the retention, at most once a minute. */
  #prune(now: number): void {
    if (now - this.#pruned < 60_000) return;
    this.#pruned = now;
    for (const [id, entry] of this.#ids) {
      if (entry.ended !== null && now - entry.at > ENDED_RETENTION_MS) this.#ids.delete(id);
    }
  }

  /** The scope's state with expired leases purged: their worst case becomes unsettled spend, their slot is freed. */
  #state(key: string, now: number): ScopeState {
    let state = this.#scopes.get(key);
    if (!state) {
      state = {
        spent: 0,
        reserved: 0,
        unsettled: 0,
        leases: new Map(),
        expired: new Map(),
        earliestExpiry: Number.POSITIVE_INFINITY,
      };
      this.#scopes.set(key, state);
    } else if (now >= state.earliestExpiry) {
      let earliest = Number.POSITIVE_INFINITY;
      for (const [id, lease] of state.leases) {
        if (lease.expires <= now) {
          state.reserved -= lease.amount;
          state.leases.delete(id);
          state.spent += lease.amount;
          state.unsettled += lease.amount;
          state.expired.set(id, lease.amount);
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
  return {
    spentNanoUsd: state.spent,
    reservedNanoUsd: state.reserved,
    inFlight: state.leases.size,
    unsettledNanoUsd: state.unsettled,
    unsettledCalls: state.expired.size,
  };
}
