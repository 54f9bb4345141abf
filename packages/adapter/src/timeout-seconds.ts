/** Per-attempt timeout when a call gives none. */
const DEFAULT_TIMEOUT_SECONDS = 60;

// Node's timers hold a signed 32-bit count of milliseconds; a longer delay fires after 1 ms.
const MAX_TIMER_MILLISECONDS = 2 ** 31 - 1;

/**
 * The one check of a timeout where a request enters (the adapter, or the
 * transport when called directly): `undefined` gives the default; anything but
 * a positive finite number of seconds that Node's timers can hold is a RangeError.
 */
export function checkTimeoutSeconds(value: unknown, name = 'timeoutSeconds'): number {
  if (value === undefined) return DEFAULT_TIMEOUT_SECONDS;
  if (typeof value !== 'number' || !(value > 0) || !Number.isFinite(value)) {
    throw new RangeError(`${name} must be a positive finite number of seconds, got ${String(value)}`);
  }
  if (value * 1000 > MAX_TIMER_MILLISECONDS) {
    throw new RangeError(
      `${name} must be at most ${Math.floor(MAX_TIMER_MILLISECONDS / 1000)} seconds (Node's timer range), got ${value}`,
    );
  }
  return value;
}

/** The one conversion where a request leaves: a whole number of milliseconds, at least 1. */
export function timeoutMilliseconds(timeoutSeconds: number): number {
  return Math.max(1, Math.round(timeoutSeconds * 1000));
}
