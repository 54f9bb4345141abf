import type { AttemptOutcome, CallRecord, SettlementKind } from '@switchboard/adapter';
import { costOf } from '@switchboard/prices';
import type { Settlement } from './budget-store.js';
import { MAX_CALL_NANO_USD, settleNanoUsd, usdOf } from './nano-usd.js';
import type { Shared } from './shared.js';

/**
 * What the books record for an attempt that reserved `amount`, as the adapter's settlement rule
 * said: `exact` at the record's cost; `estimate` and `unsettled` at the worst case, unsettled (the
 * record's estimate is a lower bound, never what settles a budget); `none` released. `leased`:
 * the settlement of a lease the store granted (`Settlement.leased`), made as one object.
 */
export function settlementOf(
  outcome: AttemptOutcome,
  amount: number,
  shared: Pick<Shared, 'pricing' | 'onWarning'>,
  leased = false,
): Settlement {
  const record = outcome?.record ?? null;
  switch (settlementKindOf(outcome)) {
    case 'exact': {
      const known = record === null ? null : costNanoUsdOf(record, shared);
      if (known === null) break;
      return leased ? { actualNanoUsd: known, leased } : { actualNanoUsd: known };
    }
    case 'none':
      return leased ? { actualNanoUsd: 0, leased } : { actualNanoUsd: 0 };
  }
  // The worst case, unsettled.
  return leased
    ? { actualNanoUsd: amount, unsettled: true, leased }
    : { actualNanoUsd: amount, unsettled: true };
}

/**
 * An exact record's cost; without one (an unpriced model), its usage at the maximum
 * prices; null when neither is known.
 */
function costNanoUsdOf(record: CallRecord, shared: Pick<Shared, 'pricing' | 'onWarning'>): number | null {
  let usd: number | null = null;
  if (typeof record.costUsd === 'number' && Number.isFinite(record.costUsd)) usd = record.costUsd;
  else usd = costOf(shared.pricing.maxPricesOf(record.model), record.usage);
  if (usd === null) return null;
  const nano = settleNanoUsd(Math.max(0, usd));
  if (nano <= MAX_CALL_NANO_USD) return nano;
  shared.onWarning(
    `a call of ${record.model} reported a cost of ${usd} USD, beyond what a budget counts exactly; ${usdOf(MAX_CALL_NANO_USD)} USD is counted`,
  );
  return MAX_CALL_NANO_USD;
}

/**
 * The settlement kind of an attempt: as the adapter's rule said, or, from an older
 * adapter, guessed from what it told: a record with a cost is exact, an estimate is
 * an estimate, and a failure is released only when it provably cost nothing.
 */
function settlementKindOf(outcome: AttemptOutcome): SettlementKind {
  const told = (outcome as { settlement?: unknown } | null)?.settlement;
  if (told === 'exact' || told === 'estimate' || told === 'unsettled' || told === 'none') return told;
  const record = outcome?.record ?? null;
  if (record !== null) return (record.priceSource as string | null) === 'estimate' ? 'estimate' : 'exact';
  const billed = (outcome as { mayHaveBeenBilled?: unknown } | null)?.mayHaveBeenBilled;
  if (typeof billed === 'boolean') return billed ? 'unsettled' : 'none';
  const error = outcome?.error as { kind?: unknown; status?: unknown } | null | undefined;
  if (error?.kind === 'budget') return 'none';
  return typeof error?.status === 'number' && error.status >= 400 ? 'none' : 'unsettled';
}
