/** The token counts telemetry reads off one reply's `usage`, whichever shape the provider sent. */
export interface UsageTokens {
  /** Every prompt token, cache reads included (`prompt_tokens`, else hit + miss). */
  readonly input: number;
  /** Prompt tokens served from the provider's cache. */
  readonly cacheRead: number;
  /** Completion tokens, reasoning included. */
  readonly output: number;
  /** Completion tokens spent on reasoning. */
  readonly reasoning: number;
  /** Whether the usage had any token count at all. */
  readonly known: boolean;
}

const NONE: UsageTokens = Object.freeze({ input: 0, cacheRead: 0, output: 0, reasoning: 0, known: false });

/**
 * Reads the token counts of a `usage` entry: the primary's
 * `prompt_cache_hit_tokens` / `prompt_cache_miss_tokens`, or OpenAI's
 * `prompt_tokens_details.cached_tokens`; reasoning from
 * `completion_tokens_details.reasoning_tokens`. Missing or broken counts read 0.
 */
export function usageTokens(usage: unknown): UsageTokens {
  if (typeof usage !== 'object' || usage === null) return NONE;
  const entry = usage as Record<string, unknown>;
  const promptDetails = entry.prompt_tokens_details as Record<string, unknown> | null | undefined;
  const completionDetails = entry.completion_tokens_details as Record<string, unknown> | null | undefined;
  const hit = count(entry.prompt_cache_hit_tokens);
  const cacheRead = hit ?? count(promptDetails?.cached_tokens) ?? 0;
  const miss = count(entry.prompt_cache_miss_tokens);
  const prompt = count(entry.prompt_tokens);
  const output = count(entry.completion_tokens);
  const reasoning = count(completionDetails?.reasoning_tokens);
  return {
    input: prompt ?? (hit !== undefined || miss !== undefined ? (hit ?? 0) + (miss ?? 0) : 0),
    cacheRead,
    output: output ?? 0,
    reasoning: reasoning ?? 0,
    known: prompt !== undefined || output !== undefined || hit !== undefined || miss !== undefined,
  };
}

function count(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? Math.trunc(value) : undefined;
}
