import type { TariffRef } from '@switchboard/prices';
import type { UsageEntry } from './usage-entry.js';

/**
 * Where a call's price came from: the price book, the provider's own `usage.cost`,
 * the endpoint's prices, or an estimate (a stream that ended without usage:
 * the prompt's token bound plus the deltas received, at the model's prices).
 */
export type PriceSource = 'table' | 'provider' | 'endpoint' | 'estimate';

/** How one call was priced, as a cost model reports it (and as its `CallRecord` keeps it). */
export interface CallPricing {
  /**
   * What the call cost in USD, or null when nothing priced it. On a `CallRecord` it is the
   * cost model's figure rounded to the nearest nano-dollar: exactly `costNanoUsd / 1e9`.
   */
  readonly costUsd: number | null;
  /** The model id whose price was used, or null. */
  readonly pricedAs: string | null;
  /** Where the price came from, or null when the call was not priced. */
  readonly priceSource: PriceSource | null;
  /** Which dated tariff entry and band priced it, or null (flat prices, or not priced). */
  readonly tariff: TariffRef | null;
  /** The provider's own `usage.cost`, when it sent one. */
  readonly providerCostUsd?: number | null;
  /** The `@switchboard/prices` data version the call was costed with, when a price book priced it. */
  readonly priceVersion?: string | null;
  /**
   * When the price entry that priced the call was last checked (an ISO date, its
   * `checkedAt`), or null: not priced from a book's entry, or the entry has no date.
   * Always set on the adapter's records; optional for cost models and older records.
   */
  readonly priceCheckedAt?: string | null;
}

/** What a cost model is asked to price: one raw call's model, usage and reply time. */
export interface PricedCall {
  readonly model: string;
  readonly usage: UsageEntry;
  readonly at: Date;
}

/**
 * Turns one usage entry into USD; `ChatEndpoint` satisfies it. `cost` is handed the reply's
 * usage as the adapter read it; an implementation may take `unknown` and check it itself.
 */
export interface CostModel {
  cost(usage: UsageEntry): number | null;
  /**
   * The model id whose prices `cost(usage)` uses (an endpoint's pricing model),
   * reported as a record's `pricedAs` when `priceCall` is absent. Optional.
   */
  readonly pricingModel?: string | null;
  /**
   * Prices one raw call by the model it was made with and the tariff in force at
   * its time. Optional: without it, the adapter prices every call with `cost(usage)`
   * (`priceSource: 'endpoint'`).
   */
  priceCall?(call: PricedCall): CallPricing;
}
