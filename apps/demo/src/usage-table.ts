import { formatCount, formatUsd, renderTable } from './format.js';
import type { UsageTotals } from './usage-totals.js';

/** One labelled row of a usage table (a role, a model, or `total`). */
export interface UsageRow {
  readonly label: string;
  /** The model the row's calls were made with; a table with any shows a model column. */
  readonly model?: string;
  readonly totals: UsageTotals;
  /** Requests that reached the wire for the row's calls; a table with any shows an attempts column. */
  readonly attempts?: number;
}

/** The usage table of `cost` and `demo`: calls, billed tokens and USD per row (and its model when given), numbers right-aligned. */
export function renderUsageTable(
  labelTitle: string,
  rows: readonly UsageRow[],
  options: { color: boolean },
): string {
  const withModel = rows.some((row) => row.model !== undefined);
  const withAttempts = rows.some((row) => row.attempts !== undefined);
  const lead = (row: UsageRow) => (withModel ? [row.label, row.model ?? ''] : [row.label]);
  const first = withModel ? 2 : 1;
  const columns = withAttempts ? 6 : 5;
  return renderTable(
    [
      labelTitle,
      ...(withModel ? ['model'] : []),
      'calls',
      ...(withAttempts ? ['attempts'] : []),
      'cache hit',
      'cache miss',
      'output',
      'USD',
    ],
    rows.map((row) => [
      ...lead(row),
      formatCount(row.totals.calls),
      ...(withAttempts ? [formatCount(row.attempts ?? 0)] : []),
      formatCount(row.totals.cacheHit),
      formatCount(row.totals.cacheMiss),
      formatCount(row.totals.output),
      formatUsd(row.totals.usd),
    ]),
    { color: options.color, rightAligned: Array.from({ length: columns }, (_, index) => first + index) },
  );
}
