import type { PriceSource } from './call-record.js';
import type { UsageEntry } from './usage-entry.js';

/** How one call was priced, as a cost model reports it. */
export interface CallPricing {
  readonly costUsd: number | null;
  readonly pricedAs: string | null;
  readonly priceSource: PriceSource | null;
  readonly tariff: unknown | null;
  readonly providerCostUsd?: number | null;
  readonly priceVersion?: string | null;
}

/** What a cost model is asked to price: one raw call's model, usage and reply time. */
export interface PricedCall {
  readonly model: string;
  readonly usage: UsageEntry;
  readonly at: Date;
}

/** Turns one usage entry into USD; `ChatEndpoint` satisfies it. */
export interface CostModel {
  cost(usage: unknown): number | null;
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
