import { checkPrices, checkProvenance, SNAKE_KEYS } from './check-input.js';
import table from './price-table.json' with { type: 'json' };
import type { PricedModelId, PriceProvenance, Prices } from './prices.js';
import type { PricingOptions } from './tariff.js';

const rows = Object.entries(table.models as Record<string, unknown>);

/**
 * The shipped price table, keyed by model id, loaded from `price-table.json`
 * (snake_case rows, prompt-size `tiers` included when a row has them).
 */
export const PRICE_TABLE: ReadonlyMap<string, Prices> = new Map(
  rows.map(([model, row]) => [model, checkPrices(row, `price-table.json models."${model}"`, SNAKE_KEYS)]),
);

/** Where and when each shipped entry's prices were read (`source`, `checked_at` in the data file). */
export const PRICE_TABLE_PROVENANCE: ReadonlyMap<string, PriceProvenance> = new Map(
  rows.map(([model, row]) => {
    const field = `price-table.json models."${model}"`;
    // A check date ahead of the clock is refused by the table's tests, not here (see checkProvenance).
    const provenance = checkProvenance(row, field, SNAKE_KEYS, table.source, false);
    if (provenance === null) throw new TypeError(`${field}.checked_at must be set on every shipped entry`);
    return [model, provenance];
  }),
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

/**
 * Where and when the shipped table's price of a model was read (`source`,
 * `checkedAt`), or null for an id the table does not know (surrounding whitespace
 * ignored, as `priceOf`). A `PriceBook` has its own `provenanceOf`, for its
 * entries from code and configuration too.
 */
export function provenanceOf(model: PricedModelId): PriceProvenance | null {
  if (typeof model !== 'string') return null;
  return PRICE_TABLE_PROVENANCE.get(model.trim()) ?? null;
}
