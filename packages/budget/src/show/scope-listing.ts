import { checkKnownKeys } from '../known-keys.js';
import { checkedStoreUrl } from '../store-url.js';
import type { BudgetScopeListing } from './listing-of.js';
import { postgresScopes } from './postgres-scopes.js';
import { redisScopes } from './redis-scopes.js';

export type { BudgetScopeListing } from './listing-of.js';

/** Options of {@link listBudgetScopes}. */
export interface ListBudgetScopesOptions {
  /** The store: `redis://…` or `rediss://…` (a node of a Redis Cluster lists the whole cluster), or `postgres://…`. */
  readonly url: string;
  /** PostgreSQL: the schema of the budget's tables, as the store's `schema`. Default `switchboard`. */
  readonly schema?: string;
  /** Redis: the prefix of the budget's keys, as the store's `prefix`. Default `switchboard:budget:`. */
  readonly prefix?: string;
  /** Only this scope (`run-42` or `run-42/judge`), looked up in the store. */
  readonly scope?: string;
}

/**
 * Every scope a budget store holds, one at a time, with its spend, reservations, calls in flight,
 * unsettled worst cases, current window and the past windows it still keeps. Read-only: nothing in
 * the store is created or changed (no migration, no script that writes), so a PostgreSQL role with
 * SELECT and USAGE only, or a Redis user allowed only to read, can run it. Streams: Redis is read with
 * SCAN (a Cluster's every master), PostgreSQL through a cursor, so memory stays bounded whatever the
 * number of scopes. The current window is the one that holds the store's clock (Redis `TIME`,
 * PostgreSQL `now()`). Errors are `StoreError`s naming the store by host, never its password.
 */
export function listBudgetScopes(options: ListBudgetScopesOptions): AsyncIterable<BudgetScopeListing> {
  if (options === null || typeof options !== 'object') {
    throw new TypeError('listBudgetScopes options must be an object with a url');
  }
  checkKnownKeys(options, ['url', 'schema', 'prefix', 'scope'], 'listBudgetScopes options');
  if (typeof options.url !== 'string' || options.url === '') {
    throw new TypeError('listBudgetScopes options.url must be a redis://, rediss:// or postgres:// address');
  }
  const url = checkedStoreUrl(
    options.url,
    ['redis:', 'rediss:', 'postgres:', 'postgresql:'],
    'listBudgetScopes options.url must be a redis://, rediss:// or postgres:// address, e.g. redis://127.0.0.1:6379 (the given text is not a URL; not shown, as it may hold a password)',
    'listBudgetScopes options.url must be a redis://, rediss://, postgres:// or postgresql:// address',
  );
  const scopeKey = options.scope === undefined ? null : scopeKeyOf(options.scope);
  const redis = url.protocol === 'redis:' || url.protocol === 'rediss:';
  if (redis && options.schema !== undefined) {
    throw new TypeError(
      'listBudgetScopes options.schema is for a postgres:// store (a redis:// store takes prefix)',
    );
  }
  if (!redis && options.prefix !== undefined) {
    throw new TypeError(
      'listBudgetScopes options.prefix is for a redis:// store (a postgres:// store takes schema)',
    );
  }
  return {
    [Symbol.asyncIterator]: () =>
      redis
        ? redisScopes(options.url, options.prefix, scopeKey)
        : postgresScopes(options.url, options.schema, scopeKey),
  };
}

/** `run-42/judge` → the store's key `{run-42}/judge` (the root's name in braces); checked. */
function scopeKeyOf(scope: unknown): string {
  if (
    typeof scope !== 'string' ||
    !/^[^{}/\p{Cc}]+(\/[^{}/\p{Cc}]+)*$/u.test(scope) ||
    scope.split('/').some((name) => name.trim() === '')
  ) {
    throw new TypeError(
      `listBudgetScopes options.scope must be a scope's path such as run-42 or run-42/judge (names without '{', '}' or control characters), got ${JSON.stringify(scope)}`,
    );
  }
  const at = scope.indexOf('/');
  return at < 0 ? `{${scope}}` : `{${scope.slice(0, at)}}${scope.slice(at)}`;
}
