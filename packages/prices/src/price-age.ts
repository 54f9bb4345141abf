import { timeOf } from './check-input.js';
import type { PricingTime } from './tariff.js';

/** The age, in days, past which a price entry is stale unless a book says otherwise. */
export const DEFAULT_STALE_AFTER_DAYS = 90;

/** The `code` of the process warning for a call priced from a stale entry. */
export const STALE_PRICE_WARNING = 'SWITCHBOARD_STALE_PRICE';

const DAY_MS = 86_400_000;

/**
 * Whole days from a price's `checkedAt` (an ISO date, read as UTC midnight) to `at`
 * (default now): 0 on the day it was checked, negative before. NaN when
 * `checkedAt` is not a date.
 */
export function priceAgeDays(checkedAt: string, at?: PricingTime): number {
  return Math.floor((timeOf(at, 'at') - checkedTime(checkedAt)) / DAY_MS);
}

// The last date read: a run prices call after call from the same few entries, so each call
// reads no date text (a book has one checked date per entry, most of them the same).
let lastCheckedAt: string | undefined;
let lastCheckedMs = Number.NaN;

function checkedTime(checkedAt: string): number {
  if (checkedAt !== lastCheckedAt) {
    lastCheckedMs = Date.parse(`${checkedAt}T00:00:00Z`);
    lastCheckedAt = checkedAt;
  }
  return lastCheckedMs;
}

/** Checks `staleAfterDays`: a number of days >= 0 (`Infinity`: never stale). */
export function checkStaleAfterDays(value: unknown, field: string): number {
  if (typeof value !== 'number' || !(value >= 0))
    throw new TypeError(`${field} must be a number of days >= 0 (Infinity: never stale)`);
  return value;
}

/**
 * Where the entry that priced a call is, so a warning about it points at what to update:
 * the shipped table, a configuration's `[prices."id"]` (and its file when known), or code.
 */
export type PriceEntryOrigin =
  | { readonly kind: 'table' }
  | { readonly kind: 'config'; readonly file: string | null }
  | { readonly kind: 'code' };

// Once per model per process: a run of a thousand calls says it once.
const warned = new Set<string>();

/** Which entry priced the call, and what to update: the warning's last sentence. */
function entryHint(quoted: string, origin: PriceEntryOrigin): string {
  switch (origin.kind) {
    case 'config':
      return `It comes from [prices.${quoted}] of ${origin.file ?? 'the configuration'}: check the price and update that entry's figures and checked_at`;
    case 'code':
      return `It comes from the PriceBook entry ${quoted} given in code: check the price and update that entry's figures and checkedAt`;
    default:
      return `It comes from the shipped price table's entry ${quoted} (@switchboard/prices): check the price and update @switchboard/prices, or pin the price you checked in [prices.${quoted}] of switchboard.toml with its checked_at`;
  }
}

/**
 * Warns (a process warning of code `SWITCHBOARD_STALE_PRICE`) that a call on
 * `model` was priced from an entry checked `ageDays` days before the call, more
 * than `staleAfterDays`, naming the entry (`origin`) and what to update. Once per
 * model id per process; nothing where there is no `process.emitWarning`.
 */
export function warnStalePrice(
  model: string,
  checkedAt: string,
  ageDays: number,
  staleAfterDays: number,
  origin: PriceEntryOrigin = { kind: 'table' },
): void {
  if (warned.has(model)) return;
  warned.add(model);
  const quoted = JSON.stringify(model);
  emitProcessWarning(
    `the price of ${quoted} was last checked ${checkedAt}, ${ageDays} ${ageDays === 1 ? 'day' : 'days'} before this call (stale after ${staleAfterDays}): its costs may not be what the provider bills. ${entryHint(quoted, origin)}`,
    STALE_PRICE_WARNING,
  );
}

/** A process warning with `code`; nothing where there is no `process.emitWarning` (a browser). */
export function emitProcessWarning(message: string, code: string): void {
  const emit = (globalThis as { process?: { emitWarning?: (...args: unknown[]) => void } }).process
    ?.emitWarning;
  if (typeof emit === 'function') emit.call((globalThis as { process?: unknown }).process, message, { code });
}
