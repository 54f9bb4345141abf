/**
 * What a stream the caller breaks off (`abort()`, its signal, leaving a `for await`
 * loop early) does with its connection: `'close'` drops it at once (the record holds
 * an estimate, a budget keeps the attempt's worst case); `'drain'` reads on in the
 * background, bounded by `drainSeconds` and the reply cap, to the final usage, so the
 * record and the budget settle exactly.
 */
export type StreamBreakPolicy = 'close' | 'drain';

/** How long a drained stream may read on by default, in seconds. */
const DEFAULT_DRAIN_SECONDS = 30;

/** The stream-break options, checked: a bad one is a TypeError or RangeError naming it. */
export function streamBreakOf(
  onStreamBreak: unknown,
  drainSeconds: unknown,
): { readonly policy: StreamBreakPolicy; readonly drainMs: number } {
  if (onStreamBreak !== undefined && onStreamBreak !== 'close' && onStreamBreak !== 'drain') {
    throw new TypeError(
      `options.onStreamBreak must be 'close' or 'drain', got ${typeof onStreamBreak === 'string' ? JSON.stringify(onStreamBreak) : typeof onStreamBreak}`,
    );
  }
  if (
    drainSeconds !== undefined &&
    (typeof drainSeconds !== 'number' || !Number.isFinite(drainSeconds) || drainSeconds <= 0)
  ) {
    throw new RangeError(
      `options.drainSeconds must be a finite number of seconds > 0, got ${typeof drainSeconds === 'number' ? drainSeconds : typeof drainSeconds}`,
    );
  }
  return {
    policy: onStreamBreak ?? 'close',
    drainMs: Math.max(1, Math.round((drainSeconds ?? DEFAULT_DRAIN_SECONDS) * 1000)),
  };
}
