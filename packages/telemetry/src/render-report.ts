import type { ReportFigures } from './report-accumulator.js';
import type { TallyFigures } from './tally.js';

/** Options of {@link renderReport}. */
export interface RenderReportOptions {
  /** Columns available; default 80 (at least 40 is used). */
  readonly width?: number;
  /** Colour and block characters; default false: plain characters (see {@link useColor}). */
  readonly color?: boolean;
}

/**
 * Whether a report written to `stream` should use colour: only on a TTY and
 * when `NO_COLOR` is not set (https://no-color.org).
 */
export function useColor(
  stream: { readonly isTTY?: boolean } = process.stdout,
  env: Record<string, string | undefined> = process.env,
): boolean {
  return stream.isTTY === true && (env.NO_COLOR === undefined || env.NO_COLOR === '');
}

/** The report as text: totals, tables by role, model and endpoint, errors, and spend over time as bars. */
export function renderReport(figures: ReportFigures, options: RenderReportOptions = {}): string {
  const width = Math.max(40, Math.floor(options.width ?? 80));
  const color = options.color === true;
  const bold = (text: string) => (color ? `\u001b[1m${text}\u001b[22m` : text);
  const { totals, cache } = figures;
  const out: string[] = [];
  out.push(bold(`Switchboard report: ${figures.from ?? '-'} .. ${figures.to ?? '-'}`), '');
  out.push(bold('Totals'));
  out.push(
    `  calls ${totals.calls}, failed ${totals.failures} (degradations ${totals.degradations}), attempts ${totals.attempts}`,
  );
  out.push(
    `  cost ${usd(totals.costUsd)}${totals.unpricedCalls > 0 ? ` (unpriced calls: ${totals.unpricedCalls})` : ''}`,
  );
  out.push(
    `  tokens: input ${totals.inputTokens} (cache hits ${cache.hitTokens}, ratio ${percent(cache.ratio)}), ` +
      `output ${totals.outputTokens} (reasoning ${totals.reasoningTokens})`,
  );
  out.push(`  the cache saved ${usd(cache.savedUsd)} at the prices in force`, '');
  for (const [title, breakdown] of [
    ['By role', figures.byRole],
    ['By model', figures.byModel],
    ['By endpoint', figures.byEndpoint],
  ] as const) {
    out.push(bold(title), ...breakdownTable(breakdown, totals.costUsd, width), '');
  }
  const errors = Object.entries(figures.errors);
  if (errors.length > 0) {
    out.push(bold('Errors'));
    out.push(
      ...table(
        ['kind', 'calls', 'degradations'],
        errors.map(([kind, error]) => [kind, String(error.calls), String(error.degradations)]),
        width,
      ),
      '',
    );
  }
  out.push(bold(`Spend per ${figures.spend.bucket}`), ...spendChart(figures, width, color));
  if (figures.skipped.count > 0) {
    const more = figures.skipped.count > figures.skipped.lines.length ? ', ...' : '';
    out.push(
      '',
      `skipped ${figures.skipped.count} unreadable lines: ${figures.skipped.lines.join(', ')}${more}`,
    );
  }
  if (figures.filteredOut > 0) out.push(`${figures.filteredOut} calls outside --since/--until left out`);
  return `${out.join('\n')}\n`;
}

function breakdownTable(
  breakdown: Readonly<Record<string, TallyFigures>>,
  total: number,
  width: number,
): string[] {
  const rows = Object.entries(breakdown).map(([name, figures]) => [
    name,
    String(figures.calls),
    String(figures.failures),
    usd(figures.costUsd),
    total > 0 ? percent(figures.costUsd / total) : '-',
  ]);
  return table(['name', 'calls', 'failed', 'cost', 'share'], rows, width);
}

// A table whose first column is cut to fit the width; the others are right-aligned.
function table(header: string[], rows: string[][], width: number): string[] {
  const all = [header, ...rows];
  const widths = header.map((_, column) => Math.max(...all.map((row) => (row[column] ?? '').length)));
  const others = widths.slice(1).reduce((sum, columnWidth) => sum + columnWidth + 2, 2);
  widths[0] = Math.max(8, Math.min(widths[0] ?? 8, width - others));
  return all.map((row) =>
    `  ${row
      .map((cell, column) =>
        column === 0 ? fit(cell, widths[0] ?? 8).padEnd(widths[0] ?? 8) : cell.padStart(widths[column] ?? 0),
      )
      .join('  ')}`.trimEnd(),
  );
}

function spendChart(figures: ReportFigures, width: number, color: boolean): string[] {
  const buckets = figures.spend.buckets;
  if (buckets.length === 0) return ['  (no calls)'];
  const hourly = figures.spend.bucket === 'hour';
  const labels = buckets.map((bucket) =>
    hourly ? bucket.start.slice(5, 13).replace('T', ' ') : bucket.start.slice(11, 16),
  );
  const amounts = buckets.map((bucket) => usd(bucket.costUsd));
  const labelWidth = Math.max(...labels.map((label) => label.length));
  const amountWidth = Math.max(...amounts.map((amount) => amount.length));
  const barWidth = Math.max(10, width - labelWidth - amountWidth - 6);
  const most = Math.max(...buckets.map((bucket) => bucket.costUsd));
  return buckets.map((bucket, index) => {
    const length = most > 0 ? Math.round((bucket.costUsd / most) * barWidth) : 0;
    const bar = color ? `\u001b[36m${'█'.repeat(length)}\u001b[39m` : '#'.repeat(length);
    const padding = ' '.repeat(barWidth - length);
    return `  ${labels[index]?.padEnd(labelWidth)} |${bar}${padding}| ${amounts[index]?.padStart(amountWidth)}`;
  });
}

function fit(text: string, width: number): string {
  return text.length <= width ? text : `${text.slice(0, width - 1)}~`;
}

function usd(amount: number): string {
  if (amount === 0) return '$0';
  return `$${amount.toFixed(Math.abs(amount) < 0.01 ? 6 : 4)}`;
}

function percent(ratio: number | null): string {
  return ratio === null ? '-' : `${(ratio * 100).toFixed(1)}%`;
}
