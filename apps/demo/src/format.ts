import Table from 'cli-table3';
import pc from 'picocolors';

// Prices have at most three decimals per million tokens, so nine decimals show
// every cost exactly and a column of them adds up to its total.
const USD_DECIMALS = 9;

/** A USD amount with enough decimals to be exact for per-token prices. */
export function formatUsd(amount: number | null): string {
  return amount === null ? 'n/a' : `$${amount.toFixed(USD_DECIMALS)}`;
}

/** A whole number with thousands separators. */
export function formatCount(count: number): string {
  return count.toLocaleString('en-US');
}

/** Renders rows as a boxed table; numeric columns are right-aligned. */
export function renderTable(
  head: readonly string[],
  rows: readonly (readonly string[])[],
  options: { color: boolean; rightAligned?: readonly number[] },
): string {
  const table = new Table({
    head: head.map((title) => (options.color ? pc.bold(title) : title)),
    style: { head: [], border: [] },
    // No rule between rows: a compact table that reads like a report.
    chars: { mid: '', 'left-mid': '', 'mid-mid': '', 'right-mid': '' },
    colAligns: head.map((_, index) => (options.rightAligned?.includes(index) ? 'right' : 'left')),
  });
  for (const row of rows) table.push([...row]);
  return table.toString();
}

/** Colour helpers that do nothing when colour is off. */
export function colors(enabled: boolean) {
  return pc.createColors(enabled);
}
