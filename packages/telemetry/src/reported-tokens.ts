/**
 * The token counts a reply's `usage` reported, each null when the provider did
 * not report it: telemetry sends a count only when it was reported (0 would be a
 * claim the provider never made).
 */
export interface ReportedTokens {
  /** Every prompt token, cache reads and writes included (`prompt_tokens`, else hit + miss). */
  readonly input: number | null;
  /** Completion tokens, reasoning included. */
  readonly output: number | null;
  /** Prompt tokens served from the provider's cache. */
  readonly cacheRead: number | null;
  /** Prompt tokens written to the provider's cache (the gateway's `cache_write_tokens`). */
  readonly cacheWrite: number | null;
  /** Completion tokens spent on reasoning. */
  readonly reasoning: number | null;
}

const NONE: ReportedTokens = Object.freeze({
  input: null,
  output: null,
  cacheRead: null,
  cacheWrite: null,
  reasoning: null,
});

/**
 * Reads the counts of a `usage` entry, whichever shape the provider sent: the
 * primary's `prompt_cache_hit_tokens` / `prompt_cache_miss_tokens`, or OpenAI's
 * `prompt_tokens_details.cached_tokens` and `.cache_write_tokens`; reasoning from
 * `completion_tokens_details.reasoning_tokens`. A missing, negative or non-numeric
 * count is null; numbers are truncated to integers.
 */
export function reportedTokens(usage: unknown): ReportedTokens {
  if (typeof usage !== 'object' || usage === null) return NONE;
  const entry = usage as Record<string, unknown>;
  const promptDetails = objectOrNull(entry.prompt_tokens_details);
  const completionDetails = objectOrNull(entry.completion_tokens_details);
  const hit = count(entry.prompt_cache_hit_tokens);
  const miss = count(entry.prompt_cache_miss_tokens);
  const prompt = count(entry.prompt_tokens);
  return {
    input: prompt ?? (hit !== null && miss !== null ? hit + miss : null),
    output: count(entry.completion_tokens),
    cacheRead: hit ?? count(promptDetails?.cached_tokens),
    cacheWrite: count(promptDetails?.cache_write_tokens),
    reasoning: count(completionDetails?.reasoning_tokens),
  };
}

function objectOrNull(value: unknown): Record<string, unknown> | null {
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : null;
}

function count(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? Math.trunc(value) : null;
}
