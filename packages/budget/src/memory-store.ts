import type { AcquireRequest, AcquireResult, ScopeCounters, Settlement } from './acquire-request.js';
import type { BudgetStore, ThresholdMarks } from './budget-store.js';
import { checkKnownKeys } from './known-keys.js';
import { outsideWindow, PastWindows } from './past-windows.js';
import { retentionOf } from './retention.js';
import type { StoredScope } from './scope-limits.js';
import { UnsettledEntries } from './unsettled-entries.js';

interface ScopeState {
  /** Settled costs plus unsettled worst cases, pruned entries included. */
  spent: number;
  reserved: number;
  /** Live leases: amount reserved and expiry (ms on the monotonic clock). */
  readonly leases: Map<string, { amount: number; expires: number }>;
  /** Calls counted at their worst case (in `spent` too), with an entry per lease until the retention ends. */
  readonly unsettled: UnsettledEntries;
  /** No lease expires before this; a lower bound, so purges are skipped while nothing can be due. */
  earliestExpiry: number;
  /** How many thresholds were reported reached (see `markThresholds`). */
  mark: number;
}

// This process's own counters need no report of what is left (that is for a fallback from a shared store).
const GRANTED: AcquireResult = Object.freeze({ granted: true });
const ZERO: ScopeCounters = Object.freeze({
  spentNanoUsd: 0,
  reservedNanoUsd: 0,
  inFlight: 0,
  unsettledNanoUsd: 0,
  unsettledCalls: 0,
});

/**
 * How many ended lease ids are remembered (the latest), so a repeated settlement
 * or acquisition changes nothing; in one process a repeat comes at once, if ever.
 */
const ENDED_REMEMBERED = 10_000;

/**
 * The default store: counters in this process's memory, no dependency. Every
 * method runs synchronously, so each is atomic in one process. Limits hold for
 * this process only; use {@link RedisBudgetStore} to share them across processes.
 */
export class MemoryBudgetStore implements BudgetStore {
  readonly #scopes = new Map<string, ScopeState>();
  /** Live lease ids. */
  readonly #held = new Set<string>();
  /** The latest ended lease ids and their answer, in two generations of at most `ENDED_REMEMBERED`. */
  #ended = new Map<string, boolean>();
  #endedBefore = new Map<string, boolean>();
  readonly #now: () => number;
  readonly #clock: () => number;
  readonly #retentionMs: number;
  /** The windows of windowed scopes, pruned once past their keep. */
  readonly #windows: PastWindows;

  /**
   * @param options.now a monotonic clock in ms (tests); default `performance.now`.
   * @param options.retentionMs how long a call counted at its worst case keeps its
   *   entry, so a late settlement can replace the worst case by the cost; then the
   *   entry is pruned (its amount stays in the spend). Default 3,600,000 (1 h).
   * @param options.clock the wall clock in ms since the epoch that decides calendar windows
   *   (tests move it across midnight); default `Date.now`.
   */
  constructor(options: { now?: () => number; retentionMs?: number; clock?: () => number } = {}) {
    if (options === null || typeof options !== 'object') {
      throw new TypeError('MemoryBudgetStore options must be an object: { now?, retentionMs?, clock? }');
    }
    checkKnownKeys(options, ['now', 'retentionMs', 'clock'], 'MemoryBudgetStore options');
    for (const name of ['now', 'clock'] as const) {
      if (options[name] !== undefined && typeof options[name] !== 'function') {
        throw new TypeError(`MemoryBudgetStore options.${name} must be a function returning ms`);
      }
    }
    this.#now = options.now ?? (() => performance.now());
    this.#clock = options.clock ?? Date.now;
    this.#retentionMs = retentionOf(options?.retentionMs, 'MemoryBudgetStore options');
    this.#windows = new PastWindows(this.#retentionMs);
  }

  /** The wall clock that decides calendar windows, in ms since the epoch. */
  clockMs(): number {
    return this.#clock();
  }

  acquire(request: AcquireRequest): AcquireResult {
    const nowMs = this.#clock();
    const scopes = request.scopes;
    const wrong = outsideWindow(scopes, nowMs);
    if (wrong >= 0) return { granted: false, reason: 'window', scopeIndex: wrong, counters: ZERO, nowMs };
    // A past window with live leases stays until they end.
    for (const scope of scopes) this.#windows.touch(scope, nowMs, this.#dropIdle);
    const now = this.#now();
    const states: ScopeState[] = [];
    for (const scope of scopes) states.push(this.#state(scope.key, now));
    if (this.#held.has(request.leaseId)) return GRANTED;
    if (this.#endedAnswer(request.leaseId) !== undefined) {
      return {
        granted: false,
        reason: 'ended',
        scopeIndex: 0,
        counters: countersOf(states[0] as ScopeState),
      };
    }
    const amount = request.amountNanoUsd;
    // Out of money in any scope first (waiting cannot help), then held by reservations (it can).
    for (let index = 0; index < scopes.length; index += 1) {
      const limit = (scopes[index] as StoredScope).limitNanoUsd;
      const state = states[index] as ScopeState;
      if (limit !== null && state.spent + amount > limit) {
        return { granted: false, reason: 'spend', scopeIndex: index, counters: countersOf(state), nowMs };
      }
    }
    for (let index = 0; index < scopes.length; index += 1) {
      const limit = (scopes[index] as StoredScope).limitNanoUsd;
      const state = states[index] as ScopeState;
      if (limit !== null && state.spent + state.reserved + amount > limit) {
        return {
          granted: false,
          reason: 'reserved',
          scopeIndex: index,
          counters: countersOf(state),
          nowMs,
        };
      }
    }
    for (let index = 0; index < scopes.length; index += 1) {
      const maxInFlight = (scopes[index] as StoredScope).maxInFlight;
      const state = states[index] as ScopeState;
      if (maxInFlight !== null && state.leases.size >= maxInFlight) {
        return { granted: false, reason: 'in_flight', scopeIndex: index, counters: countersOf(state) };
      }
    }
    const expires = now + request.ttlMs;
    for (const state of states) {
      state.leases.set(request.leaseId, { amount, expires });
      state.reserved += amount;
      if (expires < state.earliestExpiry) state.earliestExpiry = expires;
    }
    this.#held.add(request.leaseId);
    return GRANTED;
  }

  /** Drops a past window's ledger unless leases are live in it (made once: no closure per acquisition). */
  readonly #dropIdle = (key: string): boolean => {
    const state = this.#scopes.get(key);
    if (state !== undefined && state.leases.size > 0) return false;
    this.#scopes.delete(key);
    return true;
  };

  settle(leaseId: string, scopes: readonly StoredScope[], settlement: Settlement): boolean {
    const now = this.#now();
    // A live lease cannot have ended: only others are looked up among the ended ones.
    let held = this.#held.delete(leaseId);
    // Granted here: with no trace left in a scope, its worst case was counted and its entry pruned.
    const granted = held || settlement.leased === true;
    if (!held) {
      const answered = this.#endedAnswer(leaseId);
      if (answered !== undefined) return answered;
    }
    const actual = settlement.actualNanoUsd;
    for (const scope of scopes) {
      const state = this.#state(scope.key, now);
      const lease = state.leases.get(leaseId);
      if (lease) {
        state.reserved -= lease.amount;
        state.leases.delete(leaseId);
      } else {
        held = false;
        const worst = state.unsettled.take(leaseId);
        if (worst !== undefined) state.spent -= worst;
        // Pruned (or settled before and forgotten): it stays at its worst case, counted once.
        else if (granted) continue;
      }
      state.spent += actual;
      if (settlement.unsettled === true) state.unsettled.count(leaseId, actual, now);
    }
    if (this.#ended.size >= ENDED_REMEMBERED) {
      this.#endedBefore = this.#ended;
      this.#ended = new Map();
    }
    this.#ended.set(leaseId, held);
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

  markThresholds(
    scopes: readonly StoredScope[],
    levels: readonly (readonly number[] | null)[],
  ): ThresholdMarks[] {
    const now = this.#now();
    return scopes.map((scope, index) => {
      const state = this.#state(scope.key, now);
      const from = state.mark;
      const reached = (levels[index] ?? []).filter((level) => level <= state.spent).length;
      state.mark = Math.max(from, reached);
      return { from, to: state.mark, spentNanoUsd: state.spent };
    });
  }

  /** Nothing to do: a ledger in this process's memory cannot be lost while the process lives. */
  resetLedger(): void {}

  #endedAnswer(leaseId: string): boolean | undefined {
    return this.#ended.get(leaseId) ?? this.#endedBefore.get(leaseId);
  }

  /**
   * The scope's state with expired leases purged (their worst case becomes
   * unsettled spend, their slot is freed) and unsettled entries older than the
   * retention pruned, a bounded number per call.
   */
  #state(key: string, now: number): ScopeState {
    let state = this.#scopes.get(key);
    if (!state) {
      state = {
        spent: 0,
        reserved: 0,
        leases: new Map(),
        unsettled: new UnsettledEntries(),
        earliestExpiry: Number.POSITIVE_INFINITY,
        mark: 0,
      };
      this.#scopes.set(key, state);
    } else if (now >= state.earliestExpiry) {
      let earliest = Number.POSITIVE_INFINITY;
      for (const [id, lease] of state.leases) {
        if (lease.expires <= now) {
          state.reserved -= lease.amount;
          state.leases.delete(id);
          state.spent += lease.amount;
          state.unsettled.count(id, lease.amount, now);
        } else {
          earliest = Math.min(earliest, lease.expires);
        }
      }
      state.earliestExpiry = earliest;
    }
    state.unsettled.prune(now - this.#retentionMs);
    return state;
  }
}

function countersOf(state: ScopeState): ScopeCounters {
  return {
    spentNanoUsd: state.spent,
    reservedNanoUsd: state.reserved,
    inFlight: state.leases.size,
    unsettledNanoUsd: state.unsettled.nanoUsd,
    unsettledCalls: state.unsettled.calls,
  };
}
