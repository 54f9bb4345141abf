import { checkKnownKeys } from './known-keys.js';
import { MAX_LIMIT_USD, NANO_USD_PER_USD } from './nano-usd.js';

/** `allotments` as checked: on, with the most one share may hold (null: no cap of its own). */
export interface AllotmentSettings {
  /** `allotments.maxUsd` in nano-dollars, or null when not given. */
  readonly maxNanoUsd: number | null;
}

/** Checks `allotments` (TypeError naming it and what was expected); null when off. */
export function checkAllotments(value: unknown): AllotmentSettings | null {
  if (value === undefined || value === false) return null;
  if (value === true) return { maxNanoUsd: null };
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new TypeError(`allotments must be true, false or an object { maxUsd? }, got ${shown(value)}`);
  }
  checkKnownKeys(value, ['maxUsd'], 'allotments');
  const { maxUsd } = value as { maxUsd?: unknown };
  if (maxUsd === undefined) return { maxNanoUsd: null };
  if (!(typeof maxUsd === 'number' && Number.isFinite(maxUsd) && maxUsd > 0 && maxUsd <= MAX_LIMIT_USD)) {
    throw new TypeError(
      `allotments.maxUsd must be a number of USD above 0 and at most ${MAX_LIMIT_USD} (the most one share may hold), got ${shown(maxUsd)}`,
    );
  }
  return { maxNanoUsd: Math.floor(maxUsd * NANO_USD_PER_USD) };
}

function shown(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (Array.isArray(value)) return 'an array';
  return String(value);
}
