/**
 * Budgets count money in whole nano-dollars (1e-9 USD): integers add up exactly
 * in JavaScript and in Redis (`HINCRBY`), where floating-point USD would drift.
 * Up to 2^53 nano-dollars (about 9 million USD) per scope stay exact.
 */
export const NANO_USD_PER_USD = 1_000_000_000;

/** A worst-case amount in nano-dollars, rounded up so a reservation never falls short. */
export function reserveNanoUsd(usd: number): number {
  return Math.ceil(usd * NANO_USD_PER_USD);
}

/** A settled cost in nano-dollars, rounded to the nearest: what `spent` grows by for one call record. */
export function settleNanoUsd(usd: number): number {
  return Math.round(usd * NANO_USD_PER_USD);
}

/** Nano-dollars back to USD, for messages and reports. */
export function usdOf(nanoUsd: number): number {
  return nanoUsd / NANO_USD_PER_USD;
}
