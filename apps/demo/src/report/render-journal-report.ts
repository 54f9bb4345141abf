import type { ReportFigures, TallyFigures } from '@switchboard/telemetry';
import { colors, formatCount, formatUsd, renderTable } from '../format.js';
import { plural } from '../plural.js';
import { safeText } from '../terminal-text.js';
import { spendChart } from './spend-chart.js';

/** Options of {@link renderJournalReport}. */
export interface RenderJournalReportOptions {
  /** Colour (bold headings, block bars); else plain characters. */
  readonly color: boolean;
  /** Columns the spend chart may fill. */
  readonly width: number;
}

/**
 * A journal's report as the CLI prints it: totals, cost and calls by role, model
 * and endpoint, the cache, errors and degradations, and spend over time. Every
 * name comes from the file, so each is made safe to print.
 */
export function renderJournalReport(figures: ReportFigures, options: RenderJournalReportOptions): string {
  const paint = colors(options.color);
  const { totals, cache } = figures;
  const lines: string[] = [];
  const heading = (title: string) => lines.push('', paint.bold(title));
  lines.push(
    `${paint.bold('Journal report')}: ${figures.from ?? 'no calls'}${figures.to ? ` .. ${figures.to}` : ''}`,
  );

  heading('Totals');
  const failed = `${formatCount(totals.failures)} failed (${plural(totals.degradations, 'degradation')})`;
  lines.push(`  ${plural(totals.calls, 'call')}, ${failed}, ${plural(totals.attempts, 'attempt')}`);
  const unpriced = totals.unpricedCalls > 0 ? ` (${plural(totals.unpricedCalls, 'call')} unpriced)` : '';
  lines.push(`  cost ${formatUsd(totals.costUsd)}${unpriced}`);
  lines.push(
    `  tokens: input ${formatCount(totals.inputTokens)}, output ${formatCount(totals.outputTokens)} ` +
      `(reasoning ${formatCount(totals.reasoningTokens)})`,
  );
  lines.push(
    `  cache: ${formatCount(cache.hitTokens)} hit tokens, ratio ${percent(cache.ratio)}; ` +
      `it saved ${formatUsd(cache.savedUsd)} at the prices in force`,
  );

  for (const [title, label, breakdown] of [
    ['By role', 'role', figures.byRole],
    ['By model', 'model', figures.byModel],
    ['By endpoint', 'endpoint', figures.byEndpoint],
  ] as const) {
    heading(title);
    lines.push(breakdownTable(label, breakdown, totals.costUsd, options.color));
  }

  const errors = Object.entries(figures.errors);
  heading('Errors and degradations');
  if (errors.length === 0) lines.push('  none');
  else {
    const rows = errors.map(([kind, error]) => [
      safeText(kind),
      formatCount(error.calls),
      formatCount(error.degradations),
    ]);
    lines.push(
      renderTable(['kind', 'calls', 'degradations'], rows, { color: options.color, rightAligned: [1, 2] }),
    );
    lines.push(`  degradations are recorded, not verdicts: ${formatCount(figures.degradations)}`);
  }

  heading(`Spend per ${figures.spend.bucket}`);
  lines.push(...spendChart(figures.spend, options));

  if (figures.skipped.count > 0) {
    const more = figures.skipped.count > figures.skipped.lines.length ? ', ...' : '';
    lines.push(
      '',
      `skipped ${plural(figures.skipped.count, 'unreadable line')}: ${figures.skipped.lines.join(', ')}${more}`,
    );
  }
  if (figures.filteredOut > 0) {
    lines.push(`${plural(figures.filteredOut, 'call')} outside the time window (--since, --until) left out`);
  }
  return `${lines.join('\n')}\n`;
}

function breakdownTable(
  label: string,
  breakdown: Readonly<Record<string, TallyFigures>>,
  total: number,
  color: boolean,
): string {
  const rows = Object.entries(breakdown).map(([name, figures]) => [
    safeText(name),
    formatCount(figures.calls),
    formatCount(figures.failures),
    formatUsd(figures.costUsd),
    total > 0 ? percent(figures.costUsd / total) : '-',
  ]);
  return renderTable([label, 'calls', 'failed', 'cost', 'share'], rows, {
    color,
    rightAligned: [1, 2, 3, 4],
  });
}

function percent(ratio: number | null): string {
  return ratio === null ? '-' : `${(ratio * 100).toFixed(1)}%`;
}
