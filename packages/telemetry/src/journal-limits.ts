/**
 * The bounds a journal's reader holds every line to. Anything outside them is
 * not trusted: the line is skipped and named, never counted.
 */
export const JOURNAL_LIMITS = Object.freeze({
  /** Longest line read, in bytes; a longer one is skipped without being held whole. */
  maxLineBytes: 1024 * 1024,
  /** Longest model id, role, error kind, provider, price source, `pricedAs`, `callId` or `host`, in characters. */
  maxNameLength: 256,
  /** Longest endpoint address, in characters. */
  maxUrlLength: 2048,
  /** Earliest `at` accepted (epoch ms): 2000-01-01T00:00:00Z. */
  earliestAt: Date.UTC(2000, 0, 1),
  /** Latest `at` accepted (epoch ms, exclusive): 2100-01-01T00:00:00Z. */
  latestAt: Date.UTC(2100, 0, 1),
  /** Largest cost of one call, in USD ($1,000,000). */
  maxCostUsd: 1_000_000,
  /** Largest token count of one call. */
  maxTokens: 1e12,
  /** Most attempts of one call. */
  maxAttempts: 1_000_000,
  /** Largest process id (`pid`), 2^32 − 1. */
  maxPid: 4_294_967_295,
});

/** The token counts of a line's `usage` the reader checks (each absent, null or 0 to `maxTokens`). */
export const USAGE_COUNT_FIELDS = Object.freeze([
  'prompt_tokens',
  'completion_tokens',
  'total_tokens',
  'prompt_cache_hit_tokens',
  'prompt_cache_miss_tokens',
] as const);

/** The nested objects of a `usage` the reader checks (each absent, null or an object), with their count. */
export const USAGE_DETAIL_FIELDS = Object.freeze([
  ['prompt_tokens_details', 'cached_tokens'],
  ['completion_tokens_details', 'reasoning_tokens'],
] as const);
