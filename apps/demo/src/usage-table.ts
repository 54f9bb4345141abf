import { formatCount, formatUsd, renderTable } from './format.js';
import type { UsageTotals } from './usage-totals.js';

/** One labelled row of a usage table (a role, a model, or `total`). */
export interface UsageRow {
  readonly label: string;
  /** The model the row's calls were made with; a table with any shows a model column. */
  readonly model?: string;
  readonly totals: UsageTotals;
}

/** The usage table of `cost` and `demo`: calls, billed tokens and USD per row (and its model when given), numbers right-aligned. */
export function renderUsageTable(
  labelTitle: string,
  rows: readonly UsageRow[],
  options: { color: boolean },
): string {
  const withModel = rows.some((row) => row.model !== undefined);
  const lead = (row: UsageRow) => (withModel ? [row.label, row.model ?? ''] : [row.label]);
  return renderTable(
    [labelTitle, ...(withModel ? ['model'] : []), 'calls', 'cache hit', 'cache miss', 'output', 'USD'],
    rows.map((row) => [
      ...lead(row),
      formatCount(row.totals.calls),
      formatCount(row.totals.cacheHit),
      formatCount(row.totals.cacheMiss),
      formatCount(row.totals.output),
      formatUsd(row.totals.usd),
    ]),
    { color: options.color, rightAligned: withModel ? [2, 3, 4, 5, 6] : [1, 2, 3, 4, 5] },
  );
}
