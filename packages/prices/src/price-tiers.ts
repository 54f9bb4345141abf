import type { Prices, PriceTier } from './prices.js';

function isTier(tier: unknown): tier is PriceTier {
  return typeof (tier as PriceTier | null)?.aboveInputTokens === 'number';
}

/**
 * The flat prices a call with `billedInputTokens` (cache hits plus misses) is
 * billed at: the last tier whose `aboveInputTokens` it exceeds, else the base
 * prices. Flat prices are returned as they are. Never throws: tiers that are not
 * numbers are ignored, and the tiers need not be in order.
 */
export function pricesAtInput(prices: Prices, billedInputTokens: number): Prices {
  const tiers = prices.tiers;
  if (!Array.isArray(tiers) || tiers.length === 0) return prices;
  let applied: PriceTier | null = null;
  for (const tier of tiers as readonly unknown[]) {
    if (
      isTier(tier) &&
      billedInputTokens > tier.aboveInputTokens &&
      (applied === null || tier.aboveInputTokens > applied.aboveInputTokens)
    ) {
      applied = tier;
    }
  }
  return applied ?? prices;
}

/** The thresholds of some prices' tiers, ascending, each once. */
function thresholdsOf(list: readonly Prices[]): number[] {
  const thresholds = new Set<number>();
  for (const prices of list)
    for (const tier of prices.tiers ?? []) if (isTier(tier)) thresholds.add(tier.aboveInputTokens);
  return [...thresholds].sort((a, b) => a - b);
}

function maxOf(list: readonly Prices[]): { cacheHitPerM: number; inputPerM: number; outputPerM: number } {
  const max = (key: 'cacheHitPerM' | 'inputPerM' | 'outputPerM') =>
    Math.max(...list.map((prices) => prices[key]));
  return { cacheHitPerM: max('cacheHitPerM'), inputPerM: max('inputPerM'), outputPerM: max('outputPerM') };
}

/**
 * The highest price of each kind among some prices, at every prompt size: flat
 * prices when none of them has tiers, else tiers at the union of their
 * thresholds, each the dearest any of them charges above it.
 */
export function maxPrices(list: readonly Prices[]): Prices {
  const base = maxOf(list.map((prices) => pricesAtInput(prices, 0)));
  const thresholds = thresholdsOf(list);
  if (thresholds.length === 0) return Object.freeze(base);
  const tiers = thresholds.map((threshold) =>
    Object.freeze({
      aboveInputTokens: threshold,
      ...maxOf(list.map((prices) => pricesAtInput(prices, threshold + 1))),
    }),
  );
  return Object.freeze({ ...base, tiers: Object.freeze(tiers) });
}

/**
 * The dearest flat prices a call of at most `maxInputTokens` billed input tokens
 * could be charged: the base and every tier it can reach, for worst-case
 * reservations. Flat prices are returned as they are.
 */
export function maxPricesUpToInput(prices: Prices, maxInputTokens: number): Prices {
  const tiers = prices.tiers;
  if (!Array.isArray(tiers) || tiers.length === 0) return prices;
  const reachable = (tiers as readonly unknown[]).filter(
    (tier): tier is PriceTier => isTier(tier) && maxInputTokens > tier.aboveInputTokens,
  );
  const { tiers: _tiers, ...base } = prices;
  return Object.freeze(maxOf([base, ...reachable]));
}
