import type { StoredScope } from './scope-limits.js';

/** What an acquisition asks of a store: one lease in every scope of a chain, all or nothing. */
export interface AcquireRequest {
  /** Unique per attempt; the same request sent twice takes one lease (the second answers as the first). */
  readonly leaseId: string;
  /** The chain, root first; the lease must fit in every one. */
  readonly scopes: readonly StoredScope[];
  /** The worst-case cost to reserve, in nano-dollars. */
  readonly amountNanoUsd: number;
  /** The lease's time to live, in milliseconds; renewed while the attempt runs. */
  readonly ttlMs: number;
}

/** One scope's counters, in store units. */
export interface ScopeCounters {
  /** Spend, in nano-dollars: settled costs plus the worst cases of unsettled calls. */
  readonly spentNanoUsd: number;
  /** Held by live leases, in nano-dollars. */
  readonly reservedNanoUsd: number;
  /** Live leases: calls in flight. */
  readonly inFlight: number;
  /** The part of `spentNanoUsd` counted at a worst case because the call's cost is unknown. */
  readonly unsettledNanoUsd: number;
  /** Calls counted at their worst case (a lease that expired, an attempt whose fate is unknown). */
  readonly unsettledCalls: number;
  /** True when the scope's ledger vanished since this store last saw it (see `ledger_lost`). */
  readonly ledgerLost?: boolean;
}

/** The outcome of an acquisition: granted, or which scope said no and why. */
export type AcquireResult =
  | {
      readonly granted: true;
      /** Each scope's counters as the lease was taken, when the store reports them (for a fallback's share). */
      readonly counters?: readonly ScopeCounters[];
    }
  | {
      readonly granted: false;
      /**
       * `spend`: the amount does not fit the limit even with nothing reserved (spent +
       * amount > limit); `reserved`: it fits the spend but not while live leases hold
       * their reservations (spent + reserved + amount > limit); `in_flight`: no free
       * slot; `ledger_lost`: the scope's ledger vanished since this store last saw it;
       * `ended`: this lease id was already settled or released; `window`: the store's clock
       * (`nowMs`) is not within a windowed scope's window (nothing taken: ask again with the
       * windows of `nowMs`). Spend is checked in
       * every scope before reservations, and reservations before slots, so `reserved`
       * means no scope of the chain is out of money.
       */
      readonly reason: 'spend' | 'reserved' | 'in_flight' | 'ledger_lost' | 'ended' | 'window';
      /** Index of the refusing scope in the request's chain. */
      readonly scopeIndex: number;
      /** The refusing scope's counters at the time. */
      readonly counters: ScopeCounters;
      /** The store's clock when it decided, in ms since the epoch, when the store reports it. */
      readonly nowMs?: number;
    };

/** How a lease ends. */
export interface Settlement {
  /** What the scopes' spend grows by, in nano-dollars (0 releases). */
  readonly actualNanoUsd: number;
  /** The amount is a worst case, not a known cost: it counts as unsettled spend. */
  readonly unsettled?: boolean;
  /**
   * The lease id was granted by this store (a budget's own lease, not a
   * write-back): when the store keeps no trace of it (its worst case was counted
   * and the entry pruned after the retention, or it was settled before), the
   * settlement changes nothing and the call stays at its worst case.
   */
  readonly leased?: boolean;
}
