import { escapeHtml } from './escape-html.js';
import type { PriceAgeFigures } from './price-age-tally.js';
import type { Reconciliation } from './reconciliation.js';
import type { ReportAnnouncedPrice } from './report-accumulator.js';
import { driftText } from './report-prices-text.js';
import { countText, percentText, usdText } from './report-text.js';

/** Models the HTML report's reconciliation table lists at most. */
const MAX_ROWS = 15;

const calls = (count: number) => `${countText(count)} ${count === 1 ? 'call' : 'calls'}`;

/**
 * The HTML report's section on prices: how much was priced from stale or undated entries,
 * and a table of the local figures beside the provider's own, by model, drifting ones marked.
 */
export function pricesSectionHtml(
  age: PriceAgeFigures,
  reconciliation: Reconciliation,
  announced: readonly ReportAnnouncedPrice[] = [],
): string {
  const parts: string[] = announced.map(
    (change) =>
      `<p data-figure="announced" data-model="${escapeHtml(change.model)}">Announced: <strong>${escapeHtml(change.model)}</strong> changes price from ${escapeHtml(change.effectiveFrom)}${change.source === null ? '' : ` (${escapeHtml(change.source)})`}.</p>`,
  );
  if (age.pricedCalls === 0) parts.push('<p>No call was priced from a price.</p>');
  else {
    parts.push(
      `<p data-figure="priceAge.staleCalls" data-value="${age.staleCalls}">${
        age.staleCalls === 0
          ? `No call was priced from an entry checked more than ${countText(age.staleAfterDays)} days before it.`
          : `<strong>${calls(age.staleCalls)}</strong> priced from an entry checked more than ${countText(age.staleAfterDays)} days before the call: <strong data-figure="priceAge.staleCost">${escapeHtml(usdText(age.staleCost))}</strong>, ${escapeHtml(percentText(age.staleShare))} of the priced cost (${escapeHtml(age.staleModels.join(', '))}).`
      }${
        age.undatedCalls > 0
          ? ` ${calls(age.undatedCalls)} priced from an entry with no checked date: ${escapeHtml(usdText(age.undatedCost))}.`
          : ''
      }${age.oldestCheckedAt === null ? '' : ` Oldest price used: checked ${escapeHtml(age.oldestCheckedAt)}.`}</p>`,
    );
  }
  if (reconciliation.calls === 0) {
    parts.push('<p>No reply carried the provider’s own cost beside a local price.</p>');
    return parts.join('');
  }
  const threshold = percentText(reconciliation.driftThreshold);
  const entries = Object.entries(reconciliation.byModel);
  const row = (name: string, figures: Reconciliation['byModel'][string], drifting: boolean) =>
    `<tr${drifting ? ' class="note"' : ''}><td>${escapeHtml(name)}</td><td class="n">${countText(figures.calls)}</td><td class="n">${escapeHtml(usdText(figures.local))}</td><td class="n">${escapeHtml(usdText(figures.provider))}</td><td class="n">${escapeHtml(driftText(figures.drift))}${drifting ? ' ⚠' : ''}</td></tr>`;
  const rows = entries
    .slice(0, MAX_ROWS)
    .map(([model, figures]) => row(model, figures, reconciliation.drifting.includes(model)))
    .join('');
  const more =
    entries.length > MAX_ROWS
      ? `<tr><td colspan="5">… and ${countText(entries.length - MAX_ROWS)} more</td></tr>`
      : '';
  const total = `<tr><th>total</th><th class="n">${countText(reconciliation.calls)}</th><th class="n" data-figure="reconciliation.local">${escapeHtml(usdText(reconciliation.local))}</th><th class="n" data-figure="reconciliation.provider">${escapeHtml(usdText(reconciliation.provider))}</th><th class="n">${escapeHtml(driftText(reconciliation.drift))}</th></tr>`;
  parts.push(
    `<table><thead><tr><th>model</th><th class="n">calls</th><th class="n">local</th><th class="n">provider</th><th class="n">drift</th></tr></thead><tbody>${rows}${more}</tbody><tfoot>${total}</tfoot></table>`,
    `<p data-figure="reconciliation.drifting" data-value="${reconciliation.drifting.length}">${
      reconciliation.drifting.length === 0
        ? `No model drifts more than ${escapeHtml(threshold)} from the provider’s figures.`
        : `Drifting more than ${escapeHtml(threshold)} (⚠): ${escapeHtml(reconciliation.drifting.join(', '))}.`
    }</p>`,
  );
  return parts.join('');
}
