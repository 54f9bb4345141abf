import type { Prices } from './prices.js';
import type { PricingTime } from './tariff.js';

/** Throws the error every bad price input gets: a TypeError naming the field and what was expected. */
export function fail(field: string, expected: string): never {
  throw new TypeError(`${field} must be ${expected}`);
}

const CAMEL_KEYS = ['cacheHitPerM', 'inputPerM', 'outputPerM'] as const;

/** The key names of configuration entries (`[prices."model-id"]`). */
export const SNAKE_KEYS = ['cache_hit_per_m', 'input_per_m', 'output_per_m'] as const;

/** Checks a price object (camelCase `Prices`, or `keys` for config entries) and returns frozen `Prices`. */
export function checkPrices(value: unknown, field: string, keys: readonly string[] = CAMEL_KEYS): Prices {
  const [cacheHitPerM, inputPerM, outputPerM] = keys.map((key) => {
    const price = (value as Record<string, unknown> | null)?.[key];
    if (!(typeof price === 'number' && price >= 0 && price < Infinity))
      fail(`${field}.${key}`, 'a finite number >= 0');
    return price;
  });
  return Object.freeze({ cacheHitPerM, inputPerM, outputPerM } as Prices);
}

/** A pricing time as epoch milliseconds; `fallback` (default now) when it is undefined. */
export function timeOf(value: PricingTime | undefined, field: string, fallback?: number): number {
  const time =
    value === undefined ? (fallback ?? Date.now()) : typeof value === 'number' ? value : +new Date(value);
  if (Number.isNaN(time)) fail(field, 'a Date, ISO time or epoch ms');
  return time;
}
