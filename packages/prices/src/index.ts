export type { BilledTokens } from './cost-of.js';
export { costOf, tokensOf } from './cost-of.js';
export { PRICE_TABLE, PRICE_TABLE_SOURCE, priceOf } from './price-table.js';
export type { PricedModelId, Prices } from './prices.js';
