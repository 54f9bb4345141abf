import type { Prices } from './prices.js';

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

// Spec 2.3: an absent or non-numeric count is 0, numbers are truncated; a
// negative count is 0 too, so a bill is never made smaller than it could be.
function tokenCount(value: unknown): number {
  if (typeof value !== 'number' || !Number.isFinite(value)) return 0;
  return Math.max(Math.trunc(value), 0);
}

/**
 * The USD cost of one call's usage entry (spec 8, "Cost rule"):
 * `(cacheHit * cacheHitPerM + input * inputPerM + output * outputPerM) / 1_000_000`,
 * where `input` is `prompt_cache_miss_tokens` when present, otherwise
 * `max(prompt_tokens - prompt_cache_hit_tokens, 0)`.
 *
 * Returns null when there are no prices or `usage` is not a plain object. Never throws.
 */
export function costOf(prices: Prices | null, usage: unknown): number | null {
  if (prices === null || prices === undefined || !isPlainObject(usage)) return null;
  try {
    const cacheHit = tokenCount(usage.prompt_cache_hit_tokens);
    const miss = usage.prompt_cache_miss_tokens;
    const input =
      miss !== null && miss !== undefined
        ? tokenCount(miss)
        : Math.max(tokenCount(usage.prompt_tokens) - cacheHit, 0);
    const output = tokenCount(usage.completion_tokens);
    return (
      (cacheHit * prices.cacheHitPerM + input * prices.inputPerM + output * prices.outputPerM) / 1_000_000
    );
  } catch {
    // A getter that throws on a hand-made object: no readable usage, no cost.
    return null;
  }
}
