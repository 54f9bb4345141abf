import type { PriceAgeFigures } from './price-age-tally.js';
import type { Reconciliation } from './reconciliation.js';
import type { ReportAnnouncedPrice } from './report-accumulator.js';
import { countText, percentText, plural, printable, usdText } from './report-text.js';

/** A drift as a signed percentage (`+12.0%`, `-0.8%`), or `unbounded` (the provider billed 0). */
export function driftText(drift: number | null): string {
  if (drift === null) return 'unbounded (the provider billed 0)';
  return `${drift > 0 ? '+' : ''}${percentText(drift)}`;
}

/**
 * The report's lines on the prices a run was costed with: how much was priced from stale
 * or undated entries, and the local figures beside the provider's own.
 */
export function pricesLines(
  age: PriceAgeFigures,
  reconciliation: Reconciliation,
  announced: readonly ReportAnnouncedPrice[] = [],
): string[] {
  const lines: string[] = announced.map(
    (change) =>
      `  announced: ${printable(change.model)} changes price from ${change.effectiveFrom}${change.source === null ? '' : ` (${printable(change.source)})`}`,
  );
  if (age.pricedCalls === 0) lines.push('  no call priced from a price');
  else {
    const stale =
      age.staleCalls === 0
        ? `none priced from an entry checked more than ${plural(age.staleAfterDays, 'day')} before the call`
        : `stale: ${plural(age.staleCalls, 'call')} priced from an entry checked more than ${plural(age.staleAfterDays, 'day')} before the call, ${usdText(age.staleCost)} (${percentText(age.staleShare)} of the priced cost): ${age.staleModels.map(printable).join(', ')}`;
    lines.push(`  ${stale}`);
    if (age.undatedCalls > 0)
      lines.push(
        `  undated: ${plural(age.undatedCalls, 'call')} priced from an entry with no checked date, ${usdText(age.undatedCost)}`,
      );
    if (age.oldestCheckedAt !== null) lines.push(`  oldest price used: checked ${age.oldestCheckedAt}`);
  }
  if (reconciliation.calls === 0) {
    lines.push("  provider's own figures: none (no reply carried usage.cost beside a local price)");
    return lines;
  }
  lines.push(
    `  against the provider's own figures, ${plural(reconciliation.calls, 'call')}: local ${usdText(reconciliation.local)}, ` +
      `provider ${usdText(reconciliation.provider)}, drift ${driftText(reconciliation.drift)}`,
  );
  const threshold = percentText(reconciliation.driftThreshold);
  if (reconciliation.drifting.length === 0) lines.push(`  no model drifts more than ${threshold}`);
  else {
    const named = reconciliation.drifting.slice(0, 20).map((model) => {
      const figures = reconciliation.byModel[model];
      return `${printable(model)} ${driftText(figures?.drift ?? null)} (${plural(figures?.calls ?? 0, 'call')})`;
    });
    const more =
      reconciliation.drifting.length > 20 ? `, … and ${reconciliation.drifting.length - 20} more` : '';
    lines.push(`  drifting more than ${threshold}: ${named.join(', ')}${more}`);
  }
  return lines;
}
