/** What one model costs, in USD per million tokens. Instances are frozen. */
export interface Prices {
  /** Prompt tokens served from the provider's cache. */
  readonly cacheHitPerM: number;
  /** Prompt tokens not served from cache. */
  readonly inputPerM: number;
  /** Completion tokens. */
  readonly outputPerM: number;
}

/**
 * Model ids with a recorded price. The ids and prices were recorded in
 * `src/price-table.json` (see its `recorded` and `source` fields); any other
 * string is accepted and simply has no price.
 */
export type PricedModelId =
  | 'primary-flash'
  | 'primary-v4.1-flash'
  | 'primary-v4-flash'
  | 'primary-v4-flash-vision-exp'
  | 'primary-v4-pro'
  | (string & {});
