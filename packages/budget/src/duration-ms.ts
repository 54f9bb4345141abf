/**
 * The longest duration a budget option takes, in milliseconds: Node's timers hold a signed 32-bit
 * count of milliseconds, and a longer delay fires after 1 ms (`leaseTtlMs: 1e10` renewed its leases
 * about a thousand times a second; `close({ timeoutMs: 1e10 })` gave up at once). About 24.8 days.
 */
export const MAX_DURATION_MS = 2 ** 31 - 1;

/**
 * Checks an option that is a number of milliseconds: at least `min`, at most {@link MAX_DURATION_MS},
 * or `Infinity` where `infinite` allows it (no limit). Throws a RangeError naming `name` (and the
 * largest allowed, when it is past it).
 */
export function checkDurationMs(
  value: unknown,
  name: string,
  min: number,
  { infinite = false }: { infinite?: boolean } = {},
): number {
  if (infinite && value === Number.POSITIVE_INFINITY) return value;
  if (!(typeof value === 'number' && Number.isFinite(value) && value >= min)) {
    throw new RangeError(`${name} must be a number of milliseconds >= ${min}, got ${String(value)}`);
  }
  checkTimerRange(value, name, infinite);
  return value;
}

/** The upper bound alone: a RangeError naming `name` and the largest allowed when `value` is past it. */
export function checkTimerRange(value: number, name: string, infinite = false): void {
  if (value > MAX_DURATION_MS) {
    throw new RangeError(
      `${name} must be at most ${MAX_DURATION_MS} ms (2^31 - 1, about 24.8 days: Node's timers hold no longer)${infinite ? ', or Infinity for no limit' : ''}, got ${value}`,
    );
  }
}
