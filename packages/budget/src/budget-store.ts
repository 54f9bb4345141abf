import type { StoredScope } from './scope-limits.js';

/** What an acquisition asks of a store: one lease in every scope of a chain, all or nothing. */
export interface AcquireRequest {
  /** Unique per attempt. */
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
  /** Settled spend, in nano-dollars. */
  readonly spentNanoUsd: number;
  /** Held by live leases, in nano-dollars. */
  readonly reservedNanoUsd: number;
  /** Live leases: calls in flight. */
  readonly inFlight: number;
}

/** The outcome of an acquisition: granted, or which scope said no and why. */
export type AcquireResult =
  | { readonly granted: true }
  | {
      readonly granted: false;
      /** `spend`: the amount does not fit the limit; `in_flight`: no free slot. */
      readonly reason: 'spend' | 'in_flight';
      /** Index of the refusing scope in the request's chain. */
      readonly scopeIndex: number;
      /** The refusing scope's counters at the time. */
      readonly counters: ScopeCounters;
    };

/**
 * Where budgets keep their counters. Every method is atomic over the whole chain:
 * no interleaving of processes sees a half-taken lease. Stores purge expired leases
 * (their reservation and slot return) before they check anything.
 */
export interface BudgetStore {
  /** Takes a lease in every scope, or none; spend is checked in all scopes before slots. */
  acquire(request: AcquireRequest): AcquireResult | Promise<AcquireResult>;
  /**
   * Ends a lease: its reservation and slot return and `spentNanoUsd` grows by
   * `actualNanoUsd` in every scope (0 releases). Resolves true when the lease was
   * still held, false when it had expired (the spend is added all the same).
   */
  settle(leaseId: string, scopes: readonly StoredScope[], actualNanoUsd: number): boolean | Promise<boolean>;
  /** Extends live leases to `ttlMs` from now; expired ones stay gone. Resolves the ids of those no longer held. */
  renew(
    leases: readonly { leaseId: string; scopes: readonly StoredScope[] }[],
    ttlMs: number,
  ): string[] | Promise<string[]>;
  /** Each scope's counters, after purging expired leases. */
  counters(scopes: readonly StoredScope[]): ScopeCounters[] | Promise<ScopeCounters[]>;
}
