import { nanoUsdOf } from '@switchboard/prices';

/**
 * A record's cost in whole nano-dollars: its `costNanoUsd` when that is a safe
 * integer, else its `costUsd` rounded to the nearest nano-dollar (records written
 * before `costNanoUsd` existed); null when the call was not priced.
 */
export function costNanoUsdOf(record: {
  readonly costUsd?: unknown;
  readonly costNanoUsd?: unknown;
}): number | null {
  const nano = record.costNanoUsd;
  if (typeof nano === 'number' && Number.isSafeInteger(nano)) return nano;
  const usd = record.costUsd;
  if (typeof usd !== 'number' || !Number.isFinite(usd)) return null;
  try {
    return nanoUsdOf(usd);
  } catch {
    // Past the exact range: no real call costs millions of dollars; it counts as unpriced.
    return null;
  }
}
