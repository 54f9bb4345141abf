import type { CostModel } from '@switchboard/adapter';
import { pricingOf, usageOfEvents } from './call-pricing.js';
import type { CassetteEntry } from './cassette-entry.js';
import type { CassetteProblem } from './cassette-problem.js';
import { isFailure, isStream } from './recorded-reply-kind.js';

/**
 * The calls whose recorded cost (`pricing.costUsd`, what replay bills) is not what their
 * usage costs at the prices of `costModel` now, priced as recording did: a line edited to
 * claim $0 for 3M tokens, or recorded under prices since changed. Costs are compared to the
 * nano-dollar. A call without a recorded cost or usage is left alone; one recorded with a cost
 * that the prices in force cannot price at all is named too, since nothing then vouches for it.
 */
export function repriceProblems(entries: readonly CassetteEntry[], costModel: CostModel): CassetteProblem[] {
  const problems: CassetteProblem[] = [];
  for (const entry of entries) {
    const recorded = entry.pricing?.costUsd;
    if (typeof recorded !== 'number') continue;
    const usage = usageOf(entry);
    if (usage === undefined) continue;
    const model = String(entry.request.model);
    const now = pricingOf(costModel, model, usage);
    const cost = now?.costUsd;
    const claim = `"pricing" records $${recorded} for ${tokensOf(usage)} of ${JSON.stringify(model)}`;
    if (typeof cost !== 'number') {
      problems.push({
        line: null,
        message: `call ${entry.call}: ${claim}, and the prices in force cannot price that model (give the configuration it was recorded with); replay would bill what the line says`,
      });
    } else if (nanoUsd(cost) !== nanoUsd(recorded)) {
      const under = describeBasis(entry.pricing ?? {});
      const basis = describeBasis(now ?? {});
      const why =
        under === basis
          ? `, but its usage costs $${cost} at those very prices: the line was edited by hand; replay bills what it says`
          : `, but its usage costs $${cost} at the prices in force${basis}: edited by hand, or recorded under other prices; replay bills what the line says, so record it again`;
      problems.push({ line: null, message: `call ${entry.call}: ${claim}${under}${why}` });
    }
  }
  return problems;
}

/** The usage replay prices a call by: a plain reply's, or a stream's last chunk that carried one. */
function usageOf(entry: CassetteEntry): unknown {
  const reply = entry.reply;
  if (isFailure(reply)) return undefined;
  const usage = isStream(reply)
    ? usageOfEvents(reply.events)
    : (reply.body as { usage?: unknown } | null)?.usage;
  return typeof usage === 'object' && usage !== null && !Array.isArray(usage) ? usage : undefined;
}

function tokensOf(usage: unknown): string {
  const record = usage as Record<string, unknown>;
  const count = (value: unknown) => (typeof value === 'number' && Number.isFinite(value) ? value : 0);
  return `${count(record.prompt_tokens).toLocaleString('en-US')} prompt and ${count(record.completion_tokens).toLocaleString('en-US')} completion tokens`;
}

/** ` (priced as X, checked D)`: what a pricing says it was made with, as far as it says. */
function describeBasis(pricing: Readonly<Record<string, unknown>>): string {
  const parts: string[] = [];
  if (typeof pricing.pricedAs === 'string') parts.push(`priced as ${JSON.stringify(pricing.pricedAs)}`);
  if (typeof pricing.priceSource === 'string')
    parts.push(`from the ${pricing.priceSource === 'table' ? 'price book' : pricing.priceSource}`);
  if (typeof pricing.priceCheckedAt === 'string') parts.push(`checked ${pricing.priceCheckedAt}`);
  return parts.length === 0 ? '' : ` (${parts.join(', ')})`;
}

function nanoUsd(usd: number): number {
  return Math.round(usd * 1e9);
}
