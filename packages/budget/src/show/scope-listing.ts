import { checkKnownKeys } from '../known-keys.js';
import { usdOf } from '../nano-usd.js';
import { checkedStoreUrl } from '../store-url.js';

/** One scope a store holds, as `switchboard budget show` lists it. */
export interface BudgetScopeListing {
  /** The scope as it was named: `run-42` (a root) or `run-42/judge`. */
  readonly scope: string;
  /** Spent in the current window (or ever, for a scope without one): settled costs plus unsettled worst cases. */
  readonly spentUsd: number;
  /** Held by the leases still live. */
  readonly reservedUsd: number;
  /** Calls (attempts) holding a live lease. */
  readonly inFlight: number;
  /** The part of `spentUsd` counted at a worst case (calls that ended without a cost). */
  readonly unsettledUsd: number;
  /**
   * The current window (ISO instants, on the store's clock), or null: for a scope without a window, and
   * for a windowed scope with no call yet in the current window (its earlier ones are in `past`).
   */
  readonly window: { readonly start: string; readonly end: string } | null;
  /** The earlier windows the store still keeps, oldest first. */
  readonly past: readonly { readonly start: string; readonly end: string; readonly spentUsd: number }[];
}

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

/** The figures of one ledger (a scope, or one window of a windowed scope) in nano-dollars. */
export interface LedgerFigures {
  readonly spent: number;
  readonly reserved: number;
  readonly inFlight: number;
  readonly unsettled: number;
}

/** A window of a scope as read from a store, `[startMs, endMs)` in ms since the epoch. */
export interface StoredWindow extends LedgerFigures {
  readonly startMs: number;
  readonly endMs: number;
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
    async *[Symbol.asyncIterator]() {
      const reader = redis
        ? (await import('./redis-scopes.js')).redisScopes(options.url, options.prefix, scopeKey)
        : (await import('./postgres-scopes.js')).postgresScopes(options.url, options.schema, scopeKey);
      yield* reader;
    },
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

/** A store key's scope as it was named: `{run-42}/judge` → `run-42/judge`. */
function scopeNameOf(key: string): string {
  return key.replace(/^\{([^}]*)\}/, '$1');
}

/**
 * A scope's listing from its ledger (a scope without a window) or its windows: the one that holds
 * `nowMs` is current, the earlier ones past.
 */
export function listingOf(
  key: string,
  ledger: LedgerFigures | null,
  windows: readonly StoredWindow[],
  nowMs: number,
): BudgetScopeListing {
  const sorted = [...windows].sort((a, b) => a.startMs - b.startMs);
  const current = sorted.find((window) => window.startMs <= nowMs && nowMs < window.endMs);
  const none = { spent: 0, reserved: 0, inFlight: 0, unsettled: 0 };
  // A scope given a window later keeps its ledger from before: its windows are what counts now.
  const figures = (sorted.length > 0 ? current : ledger) ?? none;
  return {
    scope: scopeNameOf(key),
    spentUsd: usdOf(figures.spent),
    reservedUsd: usdOf(figures.reserved),
    inFlight: figures.inFlight,
    unsettledUsd: usdOf(figures.unsettled),
    window: current === undefined ? null : isoOf(current),
    past: sorted
      .filter((window) => window !== current && window.startMs <= nowMs)
      .map((window) => ({ ...isoOf(window), spentUsd: usdOf(window.spent) })),
  };
}

function isoOf(window: StoredWindow): { start: string; end: string } {
  return { start: new Date(window.startMs).toISOString(), end: new Date(window.endMs).toISOString() };
}
