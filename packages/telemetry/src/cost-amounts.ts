import { NANO_USD_PER_USD } from '@switchboard/prices';
import { roundedNanoUsd } from './cost-nano-usd-of.js';
import type { TelemetryRecord } from './telemetry-record.js';

/** What one call cost, as the telemetry reports it: USD amounts from whole nano-dollars. */
export interface CostAmounts {
  /**
   * A span's `llm.cost.total`: the provider's own amount when the reply carried one
   * (`source` `provider`), else the amount Switchboard computed (`source` `local`); null for
   * an estimate (a stream that ended without usage), whose figure stays in the ledger only.
   */
  readonly reported: { readonly amount: number; readonly source: 'provider' | 'local' } | null;
  /** The call's cost in Switchboard's ledger (`costUsd`: the price table's figure, when it priced the call). */
  readonly ledger: number | null;
  /**
   * `(ledger − provider) / provider` when the ledger priced the call locally (the table, the
   * endpoint's prices) and the provider's figure beside it is above 0; else null.
   */
  readonly drift: number | null;
}

/**
 * The cost amounts of a record. Each amount is a whole number of nano-dollars
 * divided by 1e9, so it reads as the exact decimal (0.00021, never 0.00020999…).
 */
export function costAmounts(record: TelemetryRecord): CostAmounts {
  const ledgerNano = ledgerNanoUsd(record);
  const providerNano = roundedNanoUsd(record.providerCostUsd);
  const ledger = ledgerNano === null ? null : ledgerNano / NANO_USD_PER_USD;
  if (providerNano !== null) {
    const local = record.priceSource === 'table' || record.priceSource === 'endpoint';
    const drift =
      local && ledgerNano !== null && providerNano > 0 ? (ledgerNano - providerNano) / providerNano : null;
    return { reported: { amount: providerNano / NANO_USD_PER_USD, source: 'provider' }, ledger, drift };
  }
  if (ledger === null || record.priceSource === 'estimate') return { reported: null, ledger, drift: null };
  // A record priced from the provider's cost, without the provider's figure beside it.
  const source = record.priceSource === 'provider' ? 'provider' : 'local';
  return { reported: { amount: ledger, source }, ledger, drift: null };
}

/** The record's ledger cost in integer nano-dollars: `costNanoUsd` when it has one, else `round(costUsd × 1e9)`. */
function ledgerNanoUsd(record: TelemetryRecord): number | null {
  const nano = (record as { readonly costNanoUsd?: unknown }).costNanoUsd;
  if (typeof nano === 'number' && Number.isSafeInteger(nano) && nano >= 0) return nano;
  return roundedNanoUsd(record.costUsd);
}
