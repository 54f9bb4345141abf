import { usdOf } from '../nano-usd.js';

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
