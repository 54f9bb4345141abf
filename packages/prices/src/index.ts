export { type BilledTokens, costOf, tokensOf } from './cost-of.js';
export {
  type FormatNanoUsdOptions,
  formatNanoUsd,
  NANO_USD_PER_USD,
  nanoUsdOf,
  usdOfNano,
} from './nano-usd.js';
export type * from './price-book.js';
export { PriceBook } from './price-book.js';
export { PRICE_TABLE, PRICE_TABLE_SOURCE, priceOf } from './price-table.js';
export type * from './prices.js';
export { PRICES_VERSION } from './prices-version.js';
export { providerCostOf } from './provider-cost-of.js';
export type * from './tariff.js';
