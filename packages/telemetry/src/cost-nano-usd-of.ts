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
  const usd = record.costUsd;
  if (typeof usd !== 'number' || !Number.isFinite(usd) || usd < 0) return null;
  const rounded = Math.round(usd * 1e9);
  return Number.isSafeInteger(rounded) ? rounded : null;
}
