import { checkKnownKeys } from './known-keys.js';
import { MAX_LIMIT_USD } from './nano-usd.js';

/** One scope of a budget: a name and its limits (either may be left out). */
export interface ScopeLimits {
  /**
   * The scope's name, e.g. `run-42` or `judge`: non-empty, without `{`, `}`, `/` or control characters.
   * A scope is identified by its path from the root (`run-42/judge`).
   */
  readonly name: string;
  /** The most this scope may spend, in USD (settled plus reserved); unlimited when left out. */
  readonly limitUsd?: number;
  /** The most calls (attempts) in flight at once in this scope; unlimited when left out. */
  readonly maxInFlight?: number;
}

/** A scope as a store sees it: its key and its limits in store units. */
export interface StoredScope {
  /** `{root}/child/...`: the root's name in braces is the Redis Cluster hash tag of every scope under it. */
  readonly key: string;
  /** The spend limit in nano-dollars, or null for none. */
  readonly limitNanoUsd: number | null;
  /** The in-flight limit, or null for none. */
  readonly maxInFlight: number | null;
}

/** Checks a scope's fields; throws a TypeError or RangeError naming the bad field. */
export function checkScopeLimits(scope: ScopeLimits, where: string): void {
  if (scope === null || typeof scope !== 'object') throw new TypeError(`${where} must be an object`);
  checkKnownKeys(scope, ['name', 'limitUsd', 'maxInFlight'], where);
  if (typeof scope.name !== 'string' || !/^[^{}/\p{Cc}]+$/u.test(scope.name) || scope.name.trim() === '') {
    throw new TypeError(
      `${where}.name must be a non-empty string without '{', '}', '/' or control characters, got ${JSON.stringify(scope.name)}`,
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
