import { escapeHtml } from './escape-html.js';
import { nanoDecimal } from './nano-usd.js';
import { fleetSectionHtml, isFleet } from './render-fleet.js';
import type { ReportFigures } from './report-accumulator.js';
import { pricesSectionHtml } from './report-prices-html.js';
import { bucketLabel, countText, percentText, usdText } from './report-text.js';
import { horizontalBars, type StackSeries, stackedBars } from './svg-charts.js';
import { OTHER_GROUP, type TallyFigures } from './tally.js';

/** Options of {@link renderReportHtml}. */
export interface RenderReportHtmlOptions {
  /** What the report is of (e.g. the journal's path), shown in the title. */
  readonly title?: string;
}

/** Rows a chart or table of the HTML report shows at most; the rest are summed up in one line. */
const MAX_ROWS = 15;

/**
 * The report as one self-contained HTML page: no script, no font, nothing
 * fetched (its Content-Security-Policy forbids it), readable offline and
 * attachable to a CI run. It shows the text report's figures and, as inline
 * SVG, spend over time stacked by role, cost by model and by role, the cache's
 * savings, error kinds over time and the costliest calls. Its size depends on
 * the report's figures (at most 60 buckets, capped rows), not on the number of calls.
 */
export function renderReportHtml(figures: ReportFigures, options: RenderReportHtmlOptions = {}): string {
  const { totals, cache, spend } = figures;
  const title = `Switchboard report${options.title ? `: ${options.title}` : ''}`;
  const labels = spend.buckets.map((bucket) => bucketLabel(bucket.start, spend.bucketMs));
  const roleSeries: StackSeries[] = [...spend.roles, OTHER_GROUP].map((role) => ({
    name: role,
    values: spend.buckets.map((bucket) => Number(bucket.byRole[role] ?? 0)),
  }));
  const errorKinds = Object.keys(figures.errors).slice(0, 7);
  const errorSeries: StackSeries[] = [...errorKinds, OTHER_GROUP].map((kind) => ({
    name: kind,
    values: spend.buckets.map((bucket) =>
      kind === OTHER_GROUP
        ? Object.entries(bucket.errors).reduce(
            (sum, [name, count]) => sum + (errorKinds.includes(name) ? 0 : count),
            0,
          )
        : (bucket.errors[kind] ?? 0),
    ),
  }));
  const usd = (value: number) => `$${value.toFixed(9)}`;
  // An axis's ticks are round: as many decimals as its step needs ($0.0005, $0.0010, ...).
  const usdTick = (value: number, step: number) =>
    `$${value.toFixed(Math.min(9, Math.max(0, -Math.floor(Math.log10(step)))))}`;
  const missTokens = Math.max(0, cache.inputTokens - cache.hitTokens);
  const body = [
    `<h1>${escapeHtml(title)}</h1>`,
    `<p class="range">${figures.from === null ? 'no calls' : `${escapeHtml(figures.from)} .. ${escapeHtml(figures.to ?? '')}`}</p>`,
    '<section class="cards">',
    card('Cost', usdText(totals.cost), 'totals.cost'),
    card('Calls', countText(totals.calls), 'totals.calls'),
    card('Attempts', countText(totals.attempts), 'totals.attempts'),
    card(
      'Failed',
      totals.degradations > 0
        ? `${countText(totals.failures)} (${countText(totals.degradations)} ${totals.degradations === 1 ? 'degradation' : 'degradations'})`
        : countText(totals.failures),
      'totals.failures',
    ),
    card('Unpriced calls (no price for the model)', countText(totals.unpricedCalls), 'totals.unpricedCalls'),
    card('Refused calls (before any cost)', countText(totals.refusedCalls), 'totals.refusedCalls'),
    card('Of the cost, estimated (a lower bound)', usdText(totals.estimatedCost), 'totals.estimatedCost'),
    card('Unsettled calls (not in the cost)', countText(totals.unsettledCalls), 'totals.unsettledCalls'),
    card('Cache saved', usdText(cache.saved), 'cache.saved'),
    '</section>',
    settlementNote(totals),
    section(
      `Spend per ${spend.bucket}, by role`,
      stackedBars(labels, roleSeries, { title: 'Spend over time by role', format: usd, tick: usdTick }),
    ),
    section(
      'Cost by model',
      horizontalBars(topRows(figures.byModel), { title: 'Cost by model', format: usd }),
    ),
    section('Cost by role', horizontalBars(topRows(figures.byRole), { title: 'Cost by role', format: usd })),
    section(
      'Cache',
      `${horizontalBars(
        [
          ['cache hits', cache.hitTokens],
          ['cache misses', missTokens],
        ],
        { title: 'Prompt tokens: cache hits and misses', format: (value) => `${countText(value)} tokens` },
      )}<p>Hit ratio ${escapeHtml(percentText(cache.ratio))}; the cache saved <strong data-figure="cache.saved.text">${escapeHtml(usdText(cache.saved))}</strong> at the prices in force${cache.unpricedHitTokens > 0 ? ` (${escapeHtml(countText(cache.unpricedHitTokens))} hit tokens of unpriced models not counted)` : ''}.</p>`,
    ),
    section(
      `Errors per ${spend.bucket}, by kind`,
      stackedBars(labels, errorSeries, {
        title: 'Error kinds over time',
        format: (value) => `${countText(value)} ${value === 1 ? 'call' : 'calls'}`,
        tick: (value) => countText(value),
        whole: true,
      }),
    ),
    section(
      'Prices and the provider’s figures',
      pricesSectionHtml(figures.priceAge, figures.reconciliation, figures.announced),
    ),
    section('Costliest calls', costliestTable(figures)),
    section('By role', breakdownTable('role', figures.byRole)),
    section('By model', breakdownTable('model', figures.byModel)),
    section('By endpoint', breakdownTable('endpoint', figures.byEndpoint)),
    isFleet(figures) ? fleetSectionHtml(figures) : '',
    figures.skipped.count > 0
      ? `<p class="note" data-figure="skipped.count" data-value="${figures.skipped.count}">${countText(figures.skipped.count)} journal lines could not be trusted and were left out (first: lines ${escapeHtml(figures.skipped.lines.slice(0, 20).join(', '))}).</p>`
      : '',
    figures.clamped.count > 0
      ? `<p class="note" data-figure="clamped.count" data-value="${figures.clamped.count}">${countText(figures.clamped.count)} calls were journaled with figures clamped or left out, so that their lines could be read (their lines' <code>clamped</code>, <code>usageError</code> and <code>recordError</code> say which; first: lines ${escapeHtml(figures.clamped.lines.slice(0, 20).join(', '))}).</p>`
      : '',
    figures.filteredOut > 0
      ? `<p class="note">${countText(figures.filteredOut)} calls outside the time window left out.</p>`
      : '',
  ].join('\n');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>${STYLE}</style>
</head>
<body>
${body}
</body>
</html>
`;
}

const STYLE = `body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:24px auto;max-width:960px;padding:0 16px;color:#1d232b;background:#fff}
h1{font-size:22px;margin:0 0 4px}h2{font-size:16px;margin:28px 0 8px;border-bottom:1px solid #dde3ea;padding-bottom:4px}
.range{color:#5b6672;margin:0 0 16px}.cards{display:grid;grid-template-columns:repeat(auto-fit,minmax(140px,1fr));gap:10px}
.card{border:1px solid #dde3ea;border-radius:6px;padding:10px}.card .label{color:#5b6672;font-size:12px}.card .value{font-size:17px;font-weight:600;font-variant-numeric:tabular-nums}
table{border-collapse:collapse;width:100%;font-variant-numeric:tabular-nums}th,td{padding:4px 8px;border-bottom:1px solid #eef1f4;text-align:left}td.n,th.n{text-align:right}
svg{display:block;font-size:11px;fill:#1d232b}.legend{list-style:none;padding:0;margin:6px 0;display:flex;flex-wrap:wrap;gap:12px;font-size:12px}
.tick{fill:#5b6672}.swatch{display:inline-block;width:10px;height:10px;margin-right:4px;border-radius:2px}.note{color:#8a4b08}`;

/** What of the total is estimated and how many calls are unsettled, in words, when there are any. */
function settlementNote(totals: TallyFigures): string {
  const parts: string[] = [];
  if (totals.estimatedCalls > 0)
    parts.push(
      `${escapeHtml(usdText(totals.estimatedCost))} of the cost, over ${countText(totals.estimatedCalls)} ${totals.estimatedCalls === 1 ? 'call' : 'calls'}, is estimated: a lower bound, as no final usage arrived (the provider may bill more).`,
    );
  if (totals.unsettledCalls > 0)
    parts.push(
      `${countText(totals.unsettledCalls)} ${totals.unsettledCalls === 1 ? 'call is' : 'calls are'} unsettled: ${totals.unsettledCalls === 1 ? 'its' : 'their'} cost is unknown and not in the total (a budget counted each at its worst case).`,
    );
  return parts.length === 0 ? '' : `<p class="note" data-figure="settlement.note">${parts.join(' ')}</p>`;
}

function card(label: string, value: string, figure: string): string {
  return `<div class="card"><div class="label">${escapeHtml(label)}</div><div class="value" data-figure="${figure}">${escapeHtml(value)}</div></div>`;
}

function section(title: string, content: string): string {
  return `<section><h2>${escapeHtml(title)}</h2>${content}</section>`;
}

function topRows(breakdown: Readonly<Record<string, TallyFigures>>): Array<readonly [string, number]> {
  const entries = Object.entries(breakdown);
  const rows: Array<readonly [string, number]> = entries
    .slice(0, MAX_ROWS)
    .map(([name, figures]) => [name, figures.costUsd]);
  if (entries.length > MAX_ROWS) {
    const rest = entries.slice(MAX_ROWS).reduce((sum, [, figures]) => sum + figures.costUsd, 0);
    rows.push([`${countText(entries.length - MAX_ROWS)} more`, rest]);
  }
  return rows;
}

function breakdownTable(label: string, breakdown: Readonly<Record<string, TallyFigures>>): string {
  const entries = Object.entries(breakdown);
  const rows = entries
    .slice(0, MAX_ROWS)
    .map(
      ([name, figures]) =>
        `<tr><td>${escapeHtml(name)}</td><td class="n">${countText(figures.calls)}</td><td class="n">${countText(figures.attempts)}</td><td class="n">${countText(figures.failures)}</td><td class="n">${escapeHtml(usdText(figures.cost))}</td><td class="n">${escapeHtml(usdText(figures.estimatedCost))} (${countText(figures.estimatedCalls)})</td><td class="n">${countText(figures.unsettledCalls)}</td></tr>`,
    )
    .join('');
  const more =
    entries.length > MAX_ROWS
      ? `<tr><td colspan="7">… and ${countText(entries.length - MAX_ROWS)} more</td></tr>`
      : '';
  return `<table><thead><tr><th>${escapeHtml(label)}</th><th class="n">calls</th><th class="n">attempts</th><th class="n">failed</th><th class="n">cost</th><th class="n" title="part of the cost that is estimated, a lower bound (calls)">estimated (calls)</th><th class="n" title="calls of unknown cost, not in the cost">unsettled</th></tr></thead><tbody>${rows}${more}</tbody></table>`;
}

function costliestTable(figures: ReportFigures): string {
  if (figures.costliest.length === 0) return '<p>No priced calls.</p>';
  const rows = figures.costliest
    .map(
      (call) =>
        `<tr><td>${escapeHtml(call.at)}</td><td>${escapeHtml(call.role ?? '(none)')}</td><td>${escapeHtml(call.model)}</td><td>${escapeHtml(call.outcome)}</td><td class="n">${call.settlement === 'estimate' ? '≥' : ''}${escapeHtml(usdText(nanoDecimal(call.costNanoUsd)))}</td><td class="n">${call.line}</td></tr>`,
    )
    .join('');
  const estimates = figures.costliest.some((call) => call.settlement === 'estimate')
    ? '<p>≥: an estimate, a lower bound of what the provider bills.</p>'
    : '';
  return `<table><thead><tr><th>at</th><th>role</th><th>model</th><th>outcome</th><th class="n">cost</th><th class="n">line</th></tr></thead><tbody>${rows}</tbody></table>${estimates}`;
}
