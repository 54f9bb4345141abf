import { NANO_USD_PER_USD } from '@switchboard/prices';

/**
 * A record's cost in whole nano-dollars: its `costNanoUsd` when that is a safe
 * integer >= 0, else its `costUsd` rounded to the nearest nano-dollar (records
 * written before `costNanoUsd` existed); null when the call was not priced (or
 * the cost is not a finite number >= 0).
 */
export function costNanoUsdOf(record: {
  readonly costUsd?: unknown;
  readonly costNanoUsd?: unknown;
}): number | null {
  const nano = record.costNanoUsd;
  if (typeof nano === 'number' && Number.isSafeInteger(nano) && nano >= 0) return nano;
  const rounded = roundedNanoUsd(record.costUsd);
  return rounded !== null && Number.isSafeInteger(rounded) ? rounded : null;
}

/** A USD amount rounded to the nearest whole nano-dollar; null when it is not a finite number >= 0. */
export function roundedNanoUsd(usd: unknown): number | null {
  if (typeof usd !== 'number' || !Number.isFinite(usd) || usd < 0) return null;
  return Math.round(usd * NANO_USD_PER_USD);
}
