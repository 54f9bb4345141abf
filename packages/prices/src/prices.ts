/**
 * Prices above a prompt-size threshold (a long-context cliff): the whole call is
 * billed at these prices when its billed input tokens (cache hits plus misses)
 * exceed `aboveInputTokens`, the cache-hit price included, as providers bill it.
 */
export interface PriceTier {
  /** The threshold: the tier applies when billed input tokens are more than this (a whole number >= 0). */
  readonly aboveInputTokens: number;
  readonly cacheHitPerM: number;
  readonly inputPerM: number;
  readonly outputPerM: number;
}

/** What one model costs, in USD per million tokens. Instances are frozen. */
export interface Prices {
  /** Prompt tokens served from the provider's cache. */
  readonly cacheHitPerM: number;
  /** Prompt tokens not served from cache. */
  readonly inputPerM: number;
  /** Completion tokens. */
  readonly outputPerM: number;
  /**
   * Prompt-size tiers in ascending order of `aboveInputTokens`: a call is priced
   * entirely at the last tier whose threshold its billed input tokens exceed, else
   * at the prices above. Absent for flat prices.
   */
  readonly tiers?: readonly PriceTier[];
}

/**
 * Where and when a price was read: `source` says where (a price list, an invoice,
 * the configuration), `checkedAt` the date it was last checked there (ISO,
 * `'YYYY-MM-DD'`). Every shipped entry has one.
 */
export interface PriceProvenance {
  readonly source: string;
  readonly checkedAt: string;
}

/**
 * Model ids with a recorded price. The ids and prices were recorded in
 * `src/price-table.json` (see each entry's `source` and `checked_at`); any other
 * string is accepted and simply has no price.
 */
export type PricedModelId =
  | 'primary-flash'
  | 'primary-v4.1-flash'
  | 'primary-v4-flash'
  | 'primary-v4-flash-vision-exp'
  | 'primary-v4-pro'
  | (string & {});
