import { NANO_USD_PER_USD as PRICES_NANO_USD_PER_USD } from '@switchboard/prices';

/**
 * Budgets count money in whole nano-dollars (1e-9 USD), the unit of `@switchboard/prices`:
 * integers add up exactly in JavaScript and in Redis (`HINCRBY`), where floating-point USD
 * would drift. Up to 2^53 nano-dollars (about 9 million USD) per scope stay exact.
 */
export const NANO_USD_PER_USD = PRICES_NANO_USD_PER_USD;

/** The most one call may reserve or settle, in nano-dollars (1,000,000 USD): far below 2^53, so sums stay exact. */
export const MAX_CALL_NANO_USD = 1e15;

/** The largest limit a scope may have, in USD: its nano-dollars stay below 2^53. */
export const MAX_LIMIT_USD = 9_000_000;

/** A worst-case amount in nano-dollars, rounded up so a reservation never falls short (Infinity past the cap). */
export function reserveNanoUsd(usd: number): number {
  const nano = Math.ceil(usd * NANO_USD_PER_USD);
  return nano > MAX_CALL_NANO_USD ? Number.POSITIVE_INFINITY : nano;
}

/** A settled cost in nano-dollars, rounded to the nearest: what `spent` grows by for one call record. */
export function settleNanoUsd(usd: number): number {
  return Math.round(usd * NANO_USD_PER_USD);
}

/** Nano-dollars back to USD, for messages and reports. */
export function usdOf(nanoUsd: number): number {
  return nanoUsd / NANO_USD_PER_USD;
}
