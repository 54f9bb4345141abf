import type { ScopeCounters } from '../../src/budget-store.js';

/** A scope's counters: zero but for `figures`. */
export function scopeCounters(figures: Partial<ScopeCounters> = {}): ScopeCounters {
  return {
    spentNanoUsd: 0,
    reservedNanoUsd: 0,
    inFlight: 0,
    unsettledNanoUsd: 0,
    unsettledCalls: 0,
    ...figures,
  };
}

/** Counters without `ledgerLost` (a store may leave it out). */
export function withoutLedgerLost(counters: readonly ScopeCounters[]): ScopeCounters[] {
  return counters.map(({ ledgerLost: _, ...rest }) => rest);
}
