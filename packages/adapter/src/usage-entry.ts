/**
 * One reply's `usage`, as the provider sent it (a frozen plain copy): the token
 * fields the cost rule and the platforms use, plus whatever else the provider adds.
 * A broken server may send anything; the price functions read each field defensively.
 */
export interface UsageEntry {
  readonly prompt_tokens?: number;
  readonly completion_tokens?: number;
  readonly total_tokens?: number;
  /** The primary's prompt tokens served from its cache. */
  readonly prompt_cache_hit_tokens?: number;
  /** The primary's prompt tokens not served from its cache. */
  readonly prompt_cache_miss_tokens?: number;
  /** OpenAI-style details; `cached_tokens` counts as cache hits when the primary's fields are absent. */
  readonly prompt_tokens_details?: {
    readonly cached_tokens?: number;
    readonly [key: string]: unknown;
  } | null;
  readonly completion_tokens_details?: {
    readonly reasoning_tokens?: number;
    readonly [key: string]: unknown;
  } | null;
  /** The gateway's own cost of the call, in USD. */
  readonly cost?: number;
  readonly [key: string]: unknown;
}
