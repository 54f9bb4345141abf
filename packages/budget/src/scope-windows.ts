import type { Chain } from './scope-chain.js';
import type { StoredScope } from './scope-limits.js';
import { type WindowBounds, type WindowRule, windowBounds } from './window-bounds.js';

/**
 * How long a past window's ledger is kept after its end (35 days: a month's window is still there
 * for a month's report and `budget show`); then whichever operation next touches the scope (or,
 * on Redis, the key's own expiry) removes it.
 */
export const PAST_WINDOW_KEEP_MS = 35 * 24 * 3_600_000;

/**
 * The store key of a scope's window: the scope's key and the window's start in braces
 * (`{svc}/acme{2026-11-28T00:00:00.000Z}`). A name never holds a brace, so no scope's key is
 * another's window, and the root's hash tag stays the first braces.
 */
export function windowKey(key: string, startMs: number): string {
  return `${key}{${new Date(startMs).toISOString()}}`;
}

/** The scope key a window's key belongs to (itself for a key without a window). */
export function baseKeyOf(key: string): string {
  const at = key.lastIndexOf('{');
  return at > 0 && key.endsWith('}') && key.indexOf('}') < at ? key.slice(0, at) : key;
}

/**
 * The budget's reading of the clock that decides windows: the memory store's `clock`, or for a
 * shared store this process's clock plus the offset the store's last answer showed. The store
 * checks every window it is given against its own clock and answers `window` with its time when
 * the guess was wrong, so a wrong guess costs a retry, never a wrong window.
 */
export class StoreClock {
  readonly #clock: () => number;
  #offsetMs = 0;

  constructor(clock: () => number) {
    this.#clock = clock;
  }

  now(): number {
    return this.#clock() + this.#offsetMs;
  }

  /** The store said its time is `storeNowMs`. */
  learn(storeNowMs: number): void {
    this.#offsetMs = storeNowMs - this.#clock();
  }
}

interface Cached {
  readonly from: number;
  readonly until: number;
  readonly scopes: readonly StoredScope[];
}

const cache = new WeakMap<Chain, Cached>();

/** The chain's scopes as a store keys them at `nowMs`: a windowed scope's key names its current window. */
export function scopesAt(chain: Chain, nowMs: number): readonly StoredScope[] {
  if (!chain.windows.some((rule) => rule !== null)) return chain.scopes;
  const cached = cache.get(chain);
  if (cached !== undefined && nowMs >= cached.from && nowMs < cached.until) return cached.scopes;
  let from = Number.NEGATIVE_INFINITY;
  let until = Number.POSITIVE_INFINITY;
  const scopes = chain.scopes.map((scope, index) => {
    const rule = chain.windows[index] ?? null;
    if (rule === null) return scope;
    const bounds = windowBounds(rule, nowMs);
    from = Math.max(from, bounds.startMs);
    until = Math.min(until, bounds.endMs);
    return { ...scope, key: windowKey(scope.key, bounds.startMs), window: bounds };
  });
  cache.set(chain, { from, until, scopes });
  return scopes;
}

/** The window of scope `index` at `nowMs`, or null for a scope without one. */
function windowOf(chain: Chain, index: number, nowMs: number): WindowBounds | null {
  const rule: WindowRule | null = chain.windows[index] ?? null;
  return rule === null ? null : windowBounds(rule, nowMs);
}

/** A window as ISO instants (`usage()`, threshold events), or null. */
export function isoWindow(bounds: WindowBounds | null | undefined): { start: string; end: string } | null {
  if (bounds === null || bounds === undefined) return null;
  return { start: new Date(bounds.startMs).toISOString(), end: new Date(bounds.endMs).toISOString() };
}

/** Milliseconds from `nowMs` to the end of scope `index`'s window, or null for a scope without one. */
export function retryAfterMsOf(chain: Chain, index: number, nowMs: number): number | null {
  const bounds = windowOf(chain, index, nowMs);
  return bounds === null ? null : Math.max(0, bounds.endMs - nowMs);
}
