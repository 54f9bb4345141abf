export type { AnnouncedPrice, PriceConfigTariff } from './config-tariffs.js';
export { type BilledTokens, costOf, tokensOf } from './cost-of.js';
export {
  type FormatNanoUsdOptions,
  formatNanoUsd,
  NANO_USD_PER_USD,
  nanoUsdOf,
  usdOfNano,
} from './nano-usd.js';
export { DEFAULT_STALE_AFTER_DAYS, priceAgeDays, STALE_PRICE_WARNING } from './price-age.js';
export type * from './price-book.js';
export { PriceBook } from './price-book.js';
export { PRICE_DRIFT_WARNING } from './price-drift.js';
export { PRICE_TABLE, PRICE_TABLE_SOURCE, priceOf, provenanceOf } from './price-table.js';
export { maxPricesUpToInput, pricesAtInput } from './price-tiers.js';
export type * from './prices.js';
export { PRICES_VERSION } from './prices-version.js';
export { providerCostOf } from './provider-cost-of.js';
export type * from './tariff.js';
