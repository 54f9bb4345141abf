import table from './price-table.json' with { type: 'json' };
import type { PricedModelId, Prices } from './prices.js';
import type { PricingOptions } from './tariff.js';

/** The shipped price table, keyed by model id, loaded from `price-table.json`. */
export const PRICE_TABLE: ReadonlyMap<string, Prices> = new Map(
  Object.entries(table.models).map(([model, row]) => [
    model,
    Object.freeze({
      cacheHitPerM: row.cache_hit_per_m,
      inputPerM: row.input_per_m,
      outputPerM: row.output_per_m,
    }),
  ]),
);

const { models: _, ...source } = table;

/** When and where the table's prices were recorded. */
export const PRICE_TABLE_SOURCE: Readonly<{
  recorded: string;
  source: string;
  currency: string;
  unit: string;
}> = Object.freeze(source);

/**
 * The prices of a model, or null for an id the table does not know.
 * Surrounding whitespace is ignored; a Map lookup never matches
 * `Object.prototype` keys such as `constructor`. The shipped table has flat prices
 * only, so `options.at` changes nothing yet; a `PriceBook` prices dated tariffs
 * and platform aliases.
 */
export function priceOf(model: PricedModelId, _options?: PricingOptions): Prices | null {
  if (typeof model !== 'string') return null;
  return PRICE_TABLE.get(model.trim()) ?? null;
}
