import type { PriceProvenance, Prices, PriceTier } from './prices.js';
import type { PricingTime } from './tariff.js';

const DAY_MS = 86_400_000;

/** Throws the error every bad price input gets: a TypeError naming the field and what was expected. */
export function fail(field: string, expected: string): never {
  throw new TypeError(`${field} must be ${expected}`);
}

/** The key names of a price entry: camelCase from code, snake_case from the configuration. */
export interface PriceKeys {
  readonly prices: readonly [string, string, string];
  readonly tiers: string;
  readonly threshold: string;
  readonly checkedAt: string;
}

export const CAMEL_KEYS: PriceKeys = {
  prices: ['cacheHitPerM', 'inputPerM', 'outputPerM'],
  tiers: 'tiers',
  threshold: 'aboveInputTokens',
  checkedAt: 'checkedAt',
};

/** The key names of configuration entries (`[prices."model-id"]`, `[[prices."model-id".tiers]]`). */
export const SNAKE_KEYS: PriceKeys = {
  prices: ['cache_hit_per_m', 'input_per_m', 'output_per_m'],
  tiers: 'tiers',
  threshold: 'above_input_tokens',
  checkedAt: 'checked_at',
};

function threePrices(value: unknown, field: string, keys: PriceKeys): [number, number, number] {
  return keys.prices.map((key) => {
    const price = (value as Record<string, unknown> | null)?.[key];
    if (!(typeof price === 'number' && price >= 0 && price < Infinity))
      fail(`${field}.${key}`, 'a finite number >= 0');
    return price;
  }) as [number, number, number];
}

function checkTiers(value: unknown, field: string, keys: PriceKeys): readonly PriceTier[] {
  if (!Array.isArray(value)) fail(field, 'an array of tiers');
  let last = -1;
  return Object.freeze(
    value.map((tier: unknown) => {
      const threshold = (tier as Record<string, unknown> | null)?.[keys.threshold];
      if (!(Number.isSafeInteger(threshold) && (threshold as number) >= 0))
        fail(`${field}[].${keys.threshold}`, 'a whole number of tokens >= 0');
      if ((threshold as number) <= last)
        fail(
          `${field}[].${keys.threshold}`,
          `in ascending order, each threshold once (${threshold} after ${last})`,
        );
      last = threshold as number;
      const [cacheHitPerM, inputPerM, outputPerM] = threePrices(tier, `${field}[]`, keys);
      return Object.freeze({ aboveInputTokens: last, cacheHitPerM, inputPerM, outputPerM });
    }),
  );
}

/**
 * Checks a price object (camelCase `Prices`, or `keys` for config entries) and returns
 * frozen `Prices`, with its prompt-size `tiers` when it has any.
 */
export function checkPrices(value: unknown, field: string, keys: PriceKeys = CAMEL_KEYS): Prices {
  const [cacheHitPerM, inputPerM, outputPerM] = threePrices(value, field, keys);
  const tiers = (value as Record<string, unknown>)[keys.tiers];
  if (tiers === undefined || tiers === null) return Object.freeze({ cacheHitPerM, inputPerM, outputPerM });
  const checked = checkTiers(tiers, `${field}.${keys.tiers}`, keys);
  return Object.freeze(
    checked.length === 0
      ? { cacheHitPerM, inputPerM, outputPerM }
      : { cacheHitPerM, inputPerM, outputPerM, tiers: checked },
  );
}

/** Whether a string is an ISO date that reads back as itself (`'2026-02-30'` is not). */
function isIsoDate(value: unknown): value is string {
  if (typeof value !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(value)) return false;
  const time = Date.parse(`${value}T00:00:00Z`);
  return !Number.isNaN(time) && new Date(time).toISOString().slice(0, 10) === value;
}

/**
 * The provenance of an entry (`source`, and `checkedAt` or `checked_at`), or null
 * when it gives no checked date. `source` defaults to `defaultSource`. A TOML date
 * (a `Date`) is taken as its calendar date. A date that does not exist (`2026-02-30`)
 * is refused, and so, unless `refuseFuture` is false, is one after tomorrow (UTC, the
 * day after today leaving room for the zones ahead of it): a price cannot have been
 * checked later than today, and an entry dated ahead would never go stale. The shipped
 * table is checked for that by its tests instead, so that a machine whose clock is
 * behind can still load it.
 */
export function checkProvenance(
  value: unknown,
  field: string,
  keys: PriceKeys,
  defaultSource: string,
  refuseFuture = true,
): PriceProvenance | null {
  const entry = value as Record<string, unknown>;
  let checkedAt = entry[keys.checkedAt];
  const source = entry.source;
  if (source !== undefined && (typeof source !== 'string' || source.trim() === ''))
    fail(`${field}.source`, 'a non-empty string');
  if (checkedAt === undefined) return null;
  if (checkedAt instanceof Date && !Number.isNaN(checkedAt.getTime()))
    checkedAt = checkedAt.toISOString().slice(0, 10);
  if (!isIsoDate(checkedAt)) fail(`${field}.${keys.checkedAt}`, "an ISO date, 'YYYY-MM-DD'");
  const now = Date.now();
  if (refuseFuture && checkedAt > new Date(now + DAY_MS).toISOString().slice(0, 10)) {
    fail(
      `${field}.${keys.checkedAt}`,
      `a date no later than today, got ${checkedAt} (today is ${new Date(now).toISOString().slice(0, 10)}, UTC): a price cannot have been checked later than today`,
    );
  }
  return Object.freeze({ source: typeof source === 'string' ? source.trim() : defaultSource, checkedAt });
}

/** A pricing time as epoch milliseconds; `fallback` (default now) when it is undefined. */
export function timeOf(value: PricingTime | undefined, field: string, fallback?: number): number {
  const time =
    value === undefined ? (fallback ?? Date.now()) : typeof value === 'number' ? value : +new Date(value);
  if (Number.isNaN(time)) fail(field, 'a Date, ISO time or epoch ms');
  return time;
}
