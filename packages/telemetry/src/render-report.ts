import { nanoDecimal } from './nano-usd.js';
import { fleetHostLines, fleetNotes, isFleet } from './render-fleet.js';
import type { ReportFigures } from './report-accumulator.js';
import { pricesLines } from './report-prices-text.js';
import { boxTable, bucketLabel, countText, percentText, plural, printable, usdText } from './report-text.js';
import type { TallyFigures } from './tally.js';

/** Options of {@link renderReport}. */
export interface RenderReportOptions {
  /** Columns available; default 80 (at least 40 is used). */
  readonly width?: number;
  /** Colour and block characters; default false: plain characters (see {@link useColor}). */
  readonly color?: boolean;
}

/** Most rows a table of the text report shows; the rest are summed up in one line. */
const MAX_ROWS = 20;
/** Costliest calls the text report lists. */
const COSTLIEST_SHOWN = 5;
/** Marks a cost that is an estimate, a lower bound. */
const ESTIMATE_MARK = '≥';

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

/**
 * The report as text, as `switchboard report` prints it: totals, cost and
 * calls by role, model and endpoint, the cache, errors and degradations, the
 * costliest calls and spend over time. USD figures are exact nine-place
 * decimals; every name from the journal is escaped (control characters and
 * newlines show as `\u001b`, `\n`).
 */
export function renderReport(figures: ReportFigures, options: RenderReportOptions = {}): string {
  const width = Math.max(40, Math.floor(options.width ?? 80));
  const color = options.color === true;
  const bold = (text: string) => (color ? `\u001b[1m${text}\u001b[22m` : text);
  const { totals, cache } = figures;
  const lines: string[] = [];
  const heading = (title: string) => lines.push('', bold(title));
  lines.push(
    `${bold('Journal report')}: ${figures.from ?? 'no calls'}${figures.to ? ` .. ${figures.to}` : ''}`,
  );
  heading('Totals');
  const failed = `${countText(totals.failures)} failed (${plural(totals.degradations, 'degradation')})`;
  lines.push(`  ${plural(totals.calls, 'call')}, ${failed}, ${plural(totals.attempts, 'attempt')}`);
  lines.push(`  cost ${usdText(totals.cost)}${uncostedText(totals)}`);
  lines.push(...settlementLines(totals));
  lines.push(
    `  tokens: input ${countText(totals.inputTokens)}, output ${countText(totals.outputTokens)} ` +
      `(reasoning ${countText(totals.reasoningTokens)})`,
  );
  lines.push(
    `  cache: ${countText(cache.hitTokens)} hit tokens, ratio ${percentText(cache.ratio)}; ` +
      `it saved ${usdText(cache.saved)} at the prices in force`,
  );
  for (const [title, label, breakdown] of [
    ['By role', 'role', figures.byRole],
    ['By model', 'model', figures.byModel],
    ['By endpoint', 'endpoint', figures.byEndpoint],
  ] as const) {
    heading(title);
    lines.push(...breakdownTable(label, breakdown, totals, width, color));
  }
  if (isFleet(figures)) lines.push(...fleetHostLines(figures, width, color));
  heading("Prices and the provider's figures");
  lines.push(...pricesLines(figures.priceAge, figures.reconciliation, figures.announced));
  heading('Errors and degradations');
  const errors = Object.entries(figures.errors);
  if (errors.length === 0) lines.push('  none');
  else {
    const rows = errors
      .slice(0, MAX_ROWS)
      .map(([kind, error]) => [printable(kind), countText(error.calls), countText(error.degradations)]);
    lines.push(
      indent(boxTable(['kind', 'calls', 'degradations'], rows, { rightAligned: [1, 2], width, color })),
    );
    if (errors.length > MAX_ROWS) lines.push(`  … and ${countText(errors.length - MAX_ROWS)} more kinds`);
    lines.push(`  degradations are recorded, not verdicts: ${countText(figures.degradations)}`);
  }
  if (figures.costliest.length > 0) {
    heading('Costliest calls');
    const shown = figures.costliest.slice(0, COSTLIEST_SHOWN);
    const rows = shown.map((call) => [
      printable(call.role ?? '(none)'),
      printable(call.model),
      call.at,
      `${call.settlement === 'estimate' ? ESTIMATE_MARK : ''}${usdText(nanoDecimal(call.costNanoUsd))}`,
      String(call.line),
    ]);
    lines.push(
      indent(boxTable(['role', 'model', 'at', 'cost', 'line'], rows, { rightAligned: [3, 4], width, color })),
    );
    if (shown.some((call) => call.settlement === 'estimate'))
      lines.push(`  ${ESTIMATE_MARK}: an estimate, a lower bound of what the provider bills`);
  }
  heading(`Spend per ${figures.spend.bucket}`);
  lines.push(...spendChart(figures.spend, width, color));
  if (figures.skipped.count > 0) {
    const more = figures.skipped.count > figures.skipped.lines.length ? ', …' : '';
    lines.push(
      '',
      `skipped ${plural(figures.skipped.count, 'unreadable line')}: ${figures.skipped.lines.join(', ')}${more}`,
    );
  }
  if (figures.clamped.count > 0) {
    const more = figures.clamped.count > figures.clamped.lines.length ? ', …' : '';
    if (figures.skipped.count === 0) lines.push('');
    lines.push(
      `${plural(figures.clamped.count, 'call')} journaled with figures clamped or left out ` +
        `(their lines' clamped, usageError, recordError say which): ${figures.clamped.lines.join(', ')}${more}`,
    );
  }
  if (figures.filteredOut > 0)
    lines.push(`${plural(figures.filteredOut, 'call')} outside the time window (--since, --until) left out`);
  if (isFleet(figures)) lines.push(...fleetNotes(figures));
  return `${lines.join('\n')}\n`;
}

/**
 * The calls the cost leaves out and why, after it: ` (1 call unpriced: no price for its model;
 * 2 calls refused before any cost)`, or '' when there are none. Unsettled calls have a line of
 * their own.
 */
function uncostedText(totals: TallyFigures): string {
  const parts: string[] = [];
  if (totals.unpricedCalls > 0)
    parts.push(
      `${plural(totals.unpricedCalls, 'call')} unpriced: no price for ${totals.unpricedCalls === 1 ? 'its model' : 'their models'}`,
    );
  if (totals.refusedCalls > 0) parts.push(`${plural(totals.refusedCalls, 'call')} refused before any cost`);
  return parts.length === 0 ? '' : ` (${parts.join('; ')})`;
}

/**
 * What of the total is estimated (a lower bound) and how many calls are unsettled (not in
 * it), when there are any: the lines under the total cost.
 */
function settlementLines(totals: TallyFigures): string[] {
  const lines: string[] = [];
  if (totals.estimatedCalls > 0)
    lines.push(
      `  of which estimated: ${usdText(totals.estimatedCost)} over ${plural(totals.estimatedCalls, 'call')} ` +
        '(a lower bound: no final usage arrived, the provider may bill more)',
    );
  if (totals.unsettledCalls > 0)
    lines.push(
      `  unsettled: ${plural(totals.unsettledCalls, 'call')} of unknown cost, not in the total ` +
        '(a budget counted each at its worst case)',
    );
  return lines;
}

function breakdownTable(
  label: string,
  breakdown: Readonly<Record<string, TallyFigures>>,
  totals: TallyFigures,
  width: number,
  color: boolean,
): string[] {
  const entries = Object.entries(breakdown);
  // The estimated and unsettled columns only when the report has any: a report of exact calls reads as before.
  const estimated = totals.estimatedCalls > 0;
  const unsettled = totals.unsettledCalls > 0;
  const rows = entries
    .slice(0, MAX_ROWS)
    .map(([name, figures]) => [
      printable(name),
      countText(figures.calls),
      countText(figures.failures),
      usdText(figures.cost),
      totals.costNanoUsd > 0 ? percentText(figures.costNanoUsd / totals.costNanoUsd) : '-',
      ...(estimated ? [`${usdText(figures.estimatedCost)} (${countText(figures.estimatedCalls)})`] : []),
      ...(unsettled ? [countText(figures.unsettledCalls)] : []),
    ]);
  const head = [
    label,
    'calls',
    'failed',
    'cost',
    'share',
    ...(estimated ? ['estimated (calls)'] : []),
    ...(unsettled ? ['unsettled'] : []),
  ];
  const table = [
    indent(
      boxTable(head, rows, {
        rightAligned: head.map((_, column) => column).slice(1),
        width,
        color,
      }),
    ),
  ];
  if (entries.length > MAX_ROWS)
    table.push(`  … and ${countText(entries.length - MAX_ROWS)} more (see --json)`);
  return table;
}

/** Spend over time as one bar per bucket (at most 60), the dearest bucket filling the width. */
function spendChart(spend: ReportFigures['spend'], width: number, color: boolean): string[] {
  const { buckets } = spend;
  if (buckets.length === 0) return ['  (no calls)'];
  const labels = buckets.map((bucket) => bucketLabel(bucket.start, spend.bucketMs));
  const amounts = buckets.map((bucket) => `${usdText(bucket.cost)}  ${plural(bucket.calls, 'call')}`);
  let labelWidth = 0;
  let dearest = 0;
  for (const [index, bucket] of buckets.entries()) {
    labelWidth = Math.max(labelWidth, labels[index]?.length ?? 0);
    dearest = Math.max(dearest, bucket.costUsd);
  }
  const amountWidth = amounts.reduce((most, amount) => Math.max(most, amount.length), 0);
  const barWidth = Math.max(10, width - labelWidth - amountWidth - 6);
  const [full, rule] = color ? ['█', '│'] : ['#', '|'];
  return buckets.map((bucket, index) => {
    // A bucket that spent anything shows at least one mark, however small beside the dearest.
    const share = dearest > 0 ? bucket.costUsd / dearest : 0;
    const length = bucket.costUsd > 0 ? Math.max(1, Math.round(share * barWidth)) : 0;
    const bar =
      (color ? `\u001b[36m${full.repeat(length)}\u001b[39m` : full.repeat(length)) +
      ' '.repeat(barWidth - length);
    return `  ${labels[index]?.padEnd(labelWidth)} ${rule}${bar}${rule} ${amounts[index]}`.trimEnd();
  });
}

function indent(text: string): string {
  return text
    .split('\n')
    .map((line) => `  ${line}`)
    .join('\n');
}
