import type { ChargedScope } from '@switchboard/adapter';
import { NANO_USD_PER_USD } from './nano-usd.js';
import { checkScopeLimits, type ScopeLimits, type StoredScope } from './scope-limits.js';
import { checkWindow, type WindowRule } from './window-bounds.js';

/** A budget's scopes, root first: their paths, how stores see them, and their limits. */
export interface Chain {
  readonly paths: readonly string[];
  readonly scopes: readonly StoredScope[];
  readonly limits: readonly ScopeLimits[];
  /** Each scope's calendar window, or null for a scope that never resets. */
  readonly windows: readonly (WindowRule | null)[];
  /** Each scope's path and limit in USD, as a call's record lists the scopes it was charged to. */
  readonly charged: readonly ChargedScope[];
}

/**
 * The longest scope key (the path from the root, in UTF-8): a PostgreSQL btree entry holds at most
 * ~2,700 bytes, with the lease id beside the key; refused at construction on every store alike.
 */
export const MAX_SCOPE_KEY_BYTES = 1024;

/** The chain with `scope` (checked; `where` names it in errors) nested under its innermost scope. */
export function extend(chain: Chain, scope: ScopeLimits, where: string): Chain {
  checkScopeLimits(scope, where);
  const root = chain.paths[0];
  const path = root === undefined ? scope.name : `${chain.paths.at(-1)}/${scope.name}`;
  // The root's name in braces is the hash tag: every scope under a root shares one Redis Cluster slot.
  const key = root === undefined ? `{${scope.name}}` : `{${root}}${path.slice(root.length)}`;
  const bytes = Buffer.byteLength(key, 'utf8');
  if (bytes > MAX_SCOPE_KEY_BYTES) {
    throw new TypeError(
      `${where}.name: the scope's path "${path.slice(0, 80)}…" is ${bytes} bytes in UTF-8, past the ${MAX_SCOPE_KEY_BYTES} a store keys (nest fewer scopes or use shorter names)`,
    );
  }
  const stored: StoredScope = {
    key,
    limitNanoUsd: scope.limitUsd === undefined ? null : Math.floor(scope.limitUsd * NANO_USD_PER_USD),
    maxInFlight: scope.maxInFlight ?? null,
  };
  return {
    paths: [...chain.paths, path],
    scopes: [...chain.scopes, stored],
    limits: [...chain.limits, scope],
    windows: [...chain.windows, checkWindow(scope.window, `${where}.window`)],
    charged: Object.freeze([
      ...chain.charged,
      Object.freeze({ scope: path, limitUsd: scope.limitUsd ?? null }),
    ]),
  };
}
