import { formatNanoUsd } from '@switchboard/prices';
import Table from 'cli-table3';
import pc from 'picocolors';

// Prices have at most three decimals per million tokens, so nine decimals show
// every cost exactly and a column of them adds up to its total; the float sums
// behind them (0.000010120000000000001) carry noise only past the ninth.
/** Decimals of every printed USD figure (the JSON output keeps the exact float). */
export const USD_DECIMALS = 9;

const usdFormat = new Intl.NumberFormat('en-US', {
  minimumFractionDigits: USD_DECIMALS,
  maximumFractionDigits: USD_DECIMALS,
});

/**
 * A USD amount as every command prints it: nine decimals, rounded half away
 * from zero, with thousands separators like token counts (`$1,234.500000000`).
 */
export function formatUsd(amount: number | null): string {
  if (amount === null) return 'n/a';
  const text = usdFormat.format(Math.abs(amount));
  return amount < 0 ? `-$${text}` : `$${text}`;
}

/**
 * Whole nano-dollars as every command prints USD, written from the integer (never
 * through a float): nine decimals, thousands separators, `$0.000047080`.
 */
export function formatNanoUsdText(nanoUsd: number): string {
  const [whole = '0', decimals = ''] = formatNanoUsd(Math.abs(nanoUsd), { minDecimals: USD_DECIMALS }).split(
    '.',
  );
  const text = `${Number(whole).toLocaleString('en-US')}.${decimals}`;
  return nanoUsd < 0 ? `-$${text}` : `$${text}`;
}

/** The confidence a mean log-probability stands for, as every command shows it: a percentage. */
export function formatConfidence(meanLogprob: number): string {
  return `${(Math.exp(meanLogprob) * 100).toFixed(1)}%`;
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
