import { formatCount, formatUsd, renderTable } from './format.js';
import type { UsageTotals } from './usage-totals.js';

/** One labelled row of a usage table (a role, a model, or `total`). */
export interface UsageRow {
  readonly label: string;
  readonly totals: UsageTotals;
}

/** The usage table of `cost` and `demo`: calls, billed tokens and USD per row, numbers right-aligned. */
export function renderUsageTable(
  labelTitle: string,
  rows: readonly UsageRow[],
  options: { color: boolean },
): string {
  return renderTable(
    [labelTitle, 'calls', 'cache hit', 'cache miss', 'output', 'USD'],
    rows.map(({ label, totals }) => [
      label,
      formatCount(totals.calls),
      formatCount(totals.cacheHit),
      formatCount(totals.cacheMiss),
      formatCount(totals.output),
      formatUsd(totals.usd),
    ]),
    { color: options.color, rightAligned: [1, 2, 3, 4, 5] },
  );
}
