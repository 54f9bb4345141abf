import type { SettlementKind } from '@switchboard/adapter';
import { costNanoUsdOf } from './cost-nano-usd-of.js';

// What the books record for a call's last attempt: the adapter's `CallRecord.settlement`, its type's home.
export type { SettlementKind };

/** Every settlement kind, in the order reports list them. */
export const SETTLEMENT_KINDS: readonly SettlementKind[] = Object.freeze([
  'exact',
  'estimate',
  'unsettled',
  'none',
]);

/** Whether `value` is one of the {@link SETTLEMENT_KINDS}. */
export function isSettlementKind(value: unknown): value is SettlementKind {
  // Compared one by one: called several times per call, and a frozen array's `includes` is a builtin call each time.
  return value === 'exact' || value === 'estimate' || value === 'unsettled' || value === 'none';
}

/** The fields `derivedSettlement` reads. */
export interface SettlementFacts {
  readonly priceSource?: unknown;
  readonly costUsd?: unknown;
  readonly costNanoUsd?: unknown;
  readonly usage?: unknown;
  readonly error?: unknown;
}

/**
 * The settlement of a record that does not say it (lines journaled before the field
 * existed): `estimate` when priced as one; `exact` when priced; a failure answered with
 * an HTTP status of 400 or more, or refused by a budget, is `none`; any other failure
 * without a cost is `unsettled`; a reply with a usage (priced or not) is `exact`, one
 * without is `unsettled` (nothing says what it cost).
 */
export function derivedSettlement(facts: SettlementFacts): SettlementKind {
  if (facts.priceSource === 'estimate') return 'estimate';
  if (costNanoUsdOf(facts) !== null) return 'exact';
  const error = facts.error;
  if (typeof error === 'object' && error !== null) {
    const { kind, status } = error as { readonly kind?: unknown; readonly status?: unknown };
    if (kind === 'budget' || (typeof status === 'number' && status >= 400)) return 'none';
    return 'unsettled';
  }
  return typeof facts.usage === 'object' && facts.usage !== null ? 'exact' : 'unsettled';
}

/** A record's settlement: its own when it has one, else the one `derivedSettlement` gives. */
export function settlementOf(record: SettlementFacts & { readonly settlement?: unknown }): SettlementKind {
  return isSettlementKind(record.settlement) ? record.settlement : derivedSettlement(record);
}
