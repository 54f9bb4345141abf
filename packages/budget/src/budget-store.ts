import type { AcquireRequest, AcquireResult, ScopeCounters, Settlement } from './acquire-request.js';
import type { StoredScope } from './scope-limits.js';

// What a budget and a store say to each other has its own module; the store's own types stay here.
export type { AcquireRequest, AcquireResult, ScopeCounters, Settlement };

/** A scope's threshold mark, as `markThresholds` answers: how many were reached before, and now. */
export interface ThresholdMarks {
  /** Thresholds reached before this call (the mark it found). */
  readonly from: number;
  /** Thresholds reached now (the mark it left: never lower than `from`). */
  readonly to: number;
  /** The scope's spend it compared, in nano-dollars. */
  readonly spentNanoUsd: number;
}

/**
 * Where budgets keep their counters. Every method is atomic over the whole chain
 * and idempotent by lease id: applied twice, it changes nothing the second time
 * and answers as the first did. Stores purge expired leases before they check
 * anything: an expired lease's reservation becomes spend at its worst case,
 * counted as unsettled, and its slot is freed. A call counted at its worst case
 * keeps an entry (which a late settlement replaces by the cost) for the store's
 * retention; then whichever operation next touches the scope prunes it, a
 * bounded number at a time, and its amount stays in the scope's spend.
 */
export interface BudgetStore {
  /**
   * Takes a lease in every scope, or none; spend is checked in all scopes, then
   * reservations, then slots. (A store that answers `spend` for a call blocked only
   * by reservations still works: the budget tells the two apart by the counters.)
   */
  acquire(request: AcquireRequest): AcquireResult | Promise<AcquireResult>;
  /**
   * Ends a lease: its reservation and slot return and the spend grows by the
   * settlement in every scope; a lease that had expired has its worst case
   * replaced by the settlement. A lease id the store never saw is recorded as
   * ended, so a late acquisition of it takes nothing. Resolves true when the
   * lease was still held, false otherwise.
   */
  settle(leaseId: string, scopes: readonly StoredScope[], settlement: Settlement): boolean | Promise<boolean>;
  /** Extends live leases to `ttlMs` from now; expired ones stay gone. Resolves the ids of those no longer held. */
  renew(
    leases: readonly { leaseId: string; scopes: readonly StoredScope[] }[],
    ttlMs: number,
  ): string[] | Promise<string[]>;
  /** Each scope's counters, after purging expired leases. */
  counters(scopes: readonly StoredScope[]): ScopeCounters[] | Promise<ScopeCounters[]>;
  /**
   * The store's clock, in ms since the epoch: the clock that decides calendar windows (Redis `TIME`,
   * PostgreSQL `now()`, the memory store's `clock`). Read by `usage()` for a windowed scope.
   */
  clockMs?(): number | Promise<number>;
  /**
   * Atomically, per scope given `levels` (ascending spend amounts in nano-dollars; null: not asked):
   * how many levels its spend (after purging expired leases) reaches, and the scope's mark (how many
   * were reached when it was last asked, 0 at first), raised to that. Each level is thus reported
   * reached once per scope key (a window's own), to whichever caller raised the mark.
   */
  markThresholds?(
    scopes: readonly StoredScope[],
    levels: readonly (readonly number[] | null)[],
  ): ThresholdMarks[] | Promise<ThresholdMarks[]>;
  /**
   * Optional: `settle`, then `markThresholds` on the same scopes with the spend this settlement left, as
   * one atomic step (one round trip). A budget with `onThreshold` uses it, when present, for a
   * settlement that spends.
   */
  settleAndMark?(
    leaseId: string,
    scopes: readonly StoredScope[],
    settlement: Settlement,
    levels: readonly (readonly number[] | null)[],
  ): { held: boolean; marks: ThresholdMarks[] } | Promise<{ held: boolean; marks: ThresholdMarks[] }>;
  /** Starts a new ledger for these scopes after a loss, keeping what they hold now. */
  resetLedger?(scopes: readonly StoredScope[]): void | Promise<void>;
  /** Lets go of what the store holds open (connections); called by a budget's `close()` when it owns the store. */
  close?(): void | Promise<void>;
}
