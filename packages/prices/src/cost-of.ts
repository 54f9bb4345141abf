import { timeOf } from './check-input.js';
import { type CompiledEntry, compileEntry } from './compile-entry.js';
import { priceAt } from './price-at.js';
import { pricesAtInput } from './price-tiers.js';
import type { Prices } from './prices.js';
import type { PriceEntry, PricingOptions, TariffHistory } from './tariff.js';

/** The token counts of one usage entry, as the cost rule bills them. */
export interface BilledTokens {
  /**
   * `prompt_cache_hit_tokens`, billed at the cache-hit price; when neither of the
   * primary's cache fields is present, `prompt_tokens_details.cached_tokens`.
   */
  readonly cacheHit: number;
  /** `prompt_cache_miss_tokens` when present, else `max(prompt_tokens - cacheHit, 0)`; billed at the input price. */
  readonly input: number;
  /** `completion_tokens`, billed at the output price. */
  readonly output: number;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

// An absent or non-numeric count is 0, numbers are truncated; a
// negative count is 0 too, so a bill is never made smaller than it could be.
// A count above Number.MAX_SAFE_INTEGER (no real reply has one) is capped there,
// so that a corrupt entry such as 1.8e308 still costs a finite amount.
function tokenCount(value: unknown): number {
  if (typeof value !== 'number' || !Number.isFinite(value)) return 0;
  return Math.min(Math.max(Math.trunc(value), 0), Number.MAX_SAFE_INTEGER);
}

function isPresent(value: unknown): boolean {
  return value !== null && value !== undefined;
}

/**
 * Reads the billed token counts of a usage entry, or null when
 * `usage` is not a plain object. Never throws.
 *
 * When the primary's fields (`prompt_cache_hit_tokens`, `prompt_cache_miss_tokens`)
 * are both absent, the common shape's `prompt_tokens_details.cached_tokens` counts
 * as cache hits, so input is `prompt_tokens - cached_tokens`; whenever either is
 * present, the cost rule applies unchanged.
 */
export function tokensOf(usage: unknown): BilledTokens | null {
  try {
    if (!isPlainObject(usage)) return null;
    const miss = usage.prompt_cache_miss_tokens;
    const hit = usage.prompt_cache_hit_tokens;
    const details = usage.prompt_tokens_details;
    const cacheHit = tokenCount(
      isPresent(hit) || isPresent(miss) || !isPlainObject(details) ? hit : details.cached_tokens,
    );
    const input = isPresent(miss)
      ? tokenCount(miss)
      : Math.max(tokenCount(usage.prompt_tokens) - cacheHit, 0);
    return { cacheHit, input, output: tokenCount(usage.completion_tokens) };
  } catch {
    // A getter or proxy trap that throws on a hand-made object: no readable usage.
    return null;
  }
}

const compiled = new WeakMap<object, CompiledEntry>();

/**
 * The USD cost of one call's usage entry:
 * `(cacheHit * cacheHitPerM + input * inputPerM + output * outputPerM) / 1_000_000`,
 * with the counts of {@link tokensOf}.
 *
 * Prices with `tiers` are priced whole at the last tier whose `aboveInputTokens` the
 * billed input tokens (`cacheHit + input`) exceed.
 *
 * `prices` may also be a `TariffHistory`: it is priced at the tariff and band
 * in force at `options.at` (default now), and the cost is null when no tariff was in
 * force then. A history is checked once (TypeError naming the bad field) and cached.
 *
 * Returns null when there are no prices or `usage` is not a plain object. Never throws
 * for flat prices; never NaN, Infinity or negative for valid prices (token counts are
 * capped at `Number.MAX_SAFE_INTEGER`).
 */
export function costOf(prices: PriceEntry | null, usage: unknown, options?: PricingOptions): number | null {
  if (prices === null || prices === undefined) return null;
  if ((prices as TariffHistory).tariffs) {
    let entry = compiled.get(prices);
    if (!entry) {
      entry = compileEntry(prices, 'prices');
      compiled.set(prices, entry);
    }
    const priced = priceAt(entry, timeOf(options?.at, 'at'));
    return priced && costAt(priced.prices, usage);
  }
  return costAt(prices as Prices, usage);
}

/**
 * The cost rule on one model's prices: at the prompt-size tier the call's billed
 * input tokens (cache hits plus misses) reach, the whole call, else at its base prices.
 */
export function costAt(prices: Prices, usage: unknown): number | null {
  const tokens = tokensOf(usage);
  if (tokens === null) return null;
  const applied = pricesAtInput(prices, tokens.cacheHit + tokens.input);
  return (
    (tokens.cacheHit * applied.cacheHitPerM +
      tokens.input * applied.inputPerM +
      tokens.output * applied.outputPerM) /
    1_000_000
  );
}
