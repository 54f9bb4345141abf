import { checkDurationMs } from './duration-ms.js';

/**
 * How long a store remembers an ended lease by default: the record that makes a
 * re-sent command change nothing and, for a call counted at its worst case, its
 * unsettled entry, which a late settlement can still replace by the cost. 1 h.
 */
export const DEFAULT_RETENTION_MS = 3_600_000;

/**
 * The most unsettled entries one operation prunes per scope: bounded work, and
 * each operation adds at most one entry, so pruning keeps up with any rate.
 */
export const PRUNE_BATCH = 100;

/** Checks a store's `retentionMs` option (RangeError naming it; at most 2^31 − 1 ms, as every duration); undefined gives the default. */
export function retentionOf(value: unknown, where: string): number {
  if (value === undefined) return DEFAULT_RETENTION_MS;
  return Math.ceil(checkDurationMs(value, `${where}.retentionMs`, 1));
}
