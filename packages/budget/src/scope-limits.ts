import { checkKnownKeys } from './known-keys.js';
import { MAX_LIMIT_USD } from './nano-usd.js';
import { type BudgetWindow, checkWindow } from './window-bounds.js';

/** One scope of a budget: a name and its limits (either may be left out). */
export interface ScopeLimits {
  /**
   * The scope's name, e.g. `run-42` or `judge`: non-empty, at most 256 characters (UTF-16 code units),
   * well-formed Unicode (no lone surrogate), without `{`, `}`, `/` or control characters. A scope is
   * identified by its path from the root (`run-42/judge`), at most 1,024 bytes in UTF-8.
   */
  readonly name: string;
  /** The most this scope may spend, in USD (settled plus reserved); unlimited when left out. */
  readonly limitUsd?: number;
  /** The most calls (attempts) in flight at once in this scope; unlimited when left out. */
  readonly maxInFlight?: number;
  /**
   * A calendar window: the scope's spend resets when it turns (`'day'`, or `{ period: 'day',
   * timeZone: 'Europe/Berlin' }`; default UTC). Each window is its own ledger: the first call after
   * a boundary starts from $0, and an attempt settles in the window it was reserved in. Without
   * one, the scope never resets.
   */
  readonly window?: BudgetWindow;
}

/** A scope as a store sees it: its key and its limits in store units. */
export interface StoredScope {
  /** `{root}/child/...`: the root's name in braces is the Redis Cluster hash tag of every scope under it. */
  readonly key: string;
  /** The spend limit in nano-dollars, or null for none. */
  readonly limitNanoUsd: number | null;
  /** The in-flight limit, or null for none. */
  readonly maxInFlight: number | null;
  /**
   * The window the key names, in ms since the epoch, for a windowed scope: the store refuses
   * (`window`, with its time) when its own clock is not within `[startMs, endMs)`.
   */
  readonly window?: { readonly startMs: number; readonly endMs: number } | null;
}

/**
 * The longest scope name, in UTF-16 code units: every store keys it as text (a PostgreSQL btree entry
 * holds at most ~2,700 bytes), so a name is refused here, the same on every store, rather than by a
 * store at each call.
 */
export const MAX_SCOPE_NAME_LENGTH = 256;

/** In a `u` pattern a surrogate pair is one code point: only an unpaired half matches. */
const LONE_SURROGATE = /[\uD800-\uDFFF]/u;

/** Checks a scope's fields; throws a TypeError or RangeError naming the bad field. */
export function checkScopeLimits(scope: ScopeLimits, where: string): void {
  if (scope === null || typeof scope !== 'object') throw new TypeError(`${where} must be an object`);
  checkKnownKeys(scope, ['name', 'limitUsd', 'maxInFlight', 'window'], where);
  checkWindow(scope.window, `${where}.window`);
  if (typeof scope.name !== 'string' || !/^[^{}/\p{Cc}]+$/u.test(scope.name) || scope.name.trim() === '') {
    throw new TypeError(
      `${where}.name must be a non-empty string without '{', '}', '/' or control characters, got ${JSON.stringify(scope.name)}`,
    );
  }
  if (scope.name.length > MAX_SCOPE_NAME_LENGTH) {
    throw new TypeError(
      `${where}.name must be at most ${MAX_SCOPE_NAME_LENGTH} characters (UTF-16 code units), got ${scope.name.length}: ${JSON.stringify(scope.name.slice(0, 40))}…`,
    );
  }
  // A lone surrogate becomes U+FFFD on the way to a store: '\uD800' and '\uDBFF' would share one ledger.
  if (LONE_SURROGATE.test(scope.name)) {
    throw new TypeError(
      `${where}.name must be well-formed Unicode (a lone surrogate such as \\uD800 cannot be stored as itself), got ${JSON.stringify(scope.name)}`,
    );
  }
  const { limitUsd, maxInFlight } = scope;
  if (
    limitUsd !== undefined &&
    !(typeof limitUsd === 'number' && Number.isFinite(limitUsd) && limitUsd >= 0 && limitUsd <= MAX_LIMIT_USD)
  ) {
    throw new RangeError(
      `${where}.limitUsd must be a number of USD from 0 to ${MAX_LIMIT_USD} (counted exactly in nano-dollars), got ${String(limitUsd)}`,
    );
  }
  if (maxInFlight !== undefined && !(Number.isInteger(maxInFlight) && maxInFlight >= 1)) {
    throw new RangeError(`${where}.maxInFlight must be an integer >= 1, got ${String(maxInFlight)}`);
  }
}
