import type { StoredScope } from './scope-limits.js';
import { baseKeyOf, PAST_WINDOW_KEEP_MS } from './scope-windows.js';

/**
 * The index of the memory store's windowed ledgers per scope: each window's key and end, so the
 * ones past their keep (`PAST_WINDOW_KEEP_MS`, or the store's retention when longer) are dropped by
 * the next acquisition in the scope.
 */
export class PastWindows {
  readonly #keepMs: number;
  readonly #byScope = new Map<string, Map<string, number>>();

  constructor(retentionMs: number) {
    this.#keepMs = Math.max(PAST_WINDOW_KEEP_MS, retentionMs);
  }

  /**
   * Records `scope`'s window and drops its scope's windows past their keep for which `drop`
   * answers true (a window with live leases stays).
   */
  touch(scope: StoredScope, nowMs: number, drop: (key: string) => boolean): void {
    const window = scope.window;
    if (window === null || window === undefined) return;
    const base = baseKeyOf(scope.key);
    let windows = this.#byScope.get(base);
    if (windows === undefined) {
      windows = new Map();
      this.#byScope.set(base, windows);
    }
    windows.set(scope.key, window.endMs);
    // In the order they were first seen, the oldest first: the first still kept ends the look.
    for (const [key, endMs] of windows) {
      if (endMs + this.#keepMs > nowMs) break;
      if (drop(key)) windows.delete(key);
    }
  }
}

/** The index of the first scope whose window does not hold `nowMs`, or -1. */
export function outsideWindow(scopes: readonly StoredScope[], nowMs: number): number {
  for (let index = 0; index < scopes.length; index += 1) {
    const window = (scopes[index] as StoredScope).window;
    if (window !== null && window !== undefined && !(nowMs >= window.startMs && nowMs < window.endMs))
      return index;
  }
  return -1;
}
