import type { BudgetScopeListing } from '@switchboard/budget';
import { formatCount, formatUsd, renderTable } from './format.js';
import { safeText } from './terminal-text.js';

/** Scopes per table: the listing streams, and a table is drawn once its rows are known. */
export const BUDGET_SHOW_PAGE = 500;

/** The table of `switchboard budget show` for a page of scopes. */
export function renderBudgetScopes(
  scopes: readonly BudgetScopeListing[],
  options: { color: boolean },
): string {
  return renderTable(
    ['scope', 'spent', 'reserved', 'in flight', 'unsettled', 'current window (UTC)', 'past windows'],
    scopes.map((listing) => [
      safeText(listing.scope),
      formatUsd(listing.spentUsd),
      formatUsd(listing.reservedUsd),
      formatCount(listing.inFlight),
      formatUsd(listing.unsettledUsd),
      listing.window === null
        ? listing.past.length > 0
          ? 'none yet'
          : 'never resets'
        : `${shortIso(listing.window.start)} → ${shortIso(listing.window.end)}`,
      pastText(listing),
    ]),
    { color: options.color, rightAligned: [1, 2, 3, 4] },
  );
}

/** `2026-11-28T00:00:00.000Z` → `2026-11-28 00:00`. */
function shortIso(iso: string): string {
  return iso.replace('T', ' ').replace(/:00\.000Z$|\.\d{3}Z$/, '');
}

/** How many past windows are kept, and the last one's spend. */
function pastText(listing: BudgetScopeListing): string {
  const last = listing.past.at(-1);
  if (last === undefined) return '';
  return `${listing.past.length} (last ${formatUsd(last.spentUsd)})`;
}
