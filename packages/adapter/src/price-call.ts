import { nanoUsdOf, type TariffRef, usdOfNano } from '@switchboard/prices';
import type { CallPricing, CostModel, PriceSource } from './cost-model.js';
import { isRecord } from './read-field.js';
import type { UsageEntry } from './usage-entry.js';

/** How a call was priced, plus why the cost model failed to price it, if it did. */
export interface PricingOutcome extends CallPricing {
  /** The checked date of the entry that priced the call, or null. */
  readonly priceCheckedAt: string | null;
  /** `costUsd` in whole nano-dollars (the cost model's figure rounded to the nearest), or null when unpriced. */
  readonly costNanoUsd: number | null;
  readonly costError: string | null;
}

const unpriced: PricingOutcome = Object.freeze({
  costUsd: null,
  costNanoUsd: null,
  pricedAs: null,
  priceSource: null,
  tariff: null,
  priceCheckedAt: null,
  costError: null,
});

/**
 * Prices one raw call: `priceCall` when the cost model has it, else
 * `cost(usage)` as the endpoint's prices; the cost is rounded to the nearest
 * nano-dollar, so `costUsd === costNanoUsd / 1e9` and sums are exact. Never throws: a cost model that
 * throws or gives a negative or non-finite cost leaves the call unpriced, with
 * `costError` saying why, so a reply that arrived is never lost to a bad price.
 */
export function priceCall(
  costModel: CostModel | null,
  model: string,
  usage: UsageEntry | null,
  at: Date,
): PricingOutcome {
  if (costModel === null || usage === null) return unpriced;
  let pricing: unknown;
  try {
    pricing =
      typeof costModel.priceCall === 'function'
        ? costModel.priceCall({ model, usage, at })
        : endpointPricing(costModel, costModel.cost(usage));
  } catch (error) {
    return failed(`the cost model threw ${error instanceof Error ? error.name : typeof error}`);
  }
  if (!isRecord(pricing)) return failed('the cost model returned no pricing');
  const costUsd = pricing.costUsd;
  if (costUsd === null || costUsd === undefined) return pick(pricing, null);
  if (typeof costUsd !== 'number' || !Number.isFinite(costUsd) || costUsd < 0) {
    return failed(`the cost model returned ${describeCost(costUsd)}, not a finite number >= 0`);
  }
  let costNanoUsd: number;
  try {
    costNanoUsd = nanoUsdOf(costUsd);
  } catch {
    return failed(`the cost model returned ${costUsd} USD, past the exact range of nano-dollars`);
  }
  return pick(pricing, costNanoUsd);
}

// 'estimate' is the adapter's own, for a stream without usage; a cost model never gives it.
const sources: ReadonlySet<unknown> = new Set(['table', 'provider', 'endpoint']);

// Only the known fields, each of its type: the record is journaled as it is.
function pick(pricing: Record<string, unknown>, costNanoUsd: number | null): PricingOutcome {
  const costUsd = costNanoUsd === null ? null : usdOfNano(costNanoUsd);
  const outcome: { -readonly [K in keyof PricingOutcome]: PricingOutcome[K] } = {
    costUsd,
    costNanoUsd,
    pricedAs: typeof pricing.pricedAs === 'string' ? pricing.pricedAs : null,
    priceSource:
      costUsd !== null && sources.has(pricing.priceSource) ? (pricing.priceSource as PriceSource) : null,
    tariff: tariffOf(pricing.tariff),
    priceCheckedAt: costUsd !== null && isIsoDate(pricing.priceCheckedAt) ? pricing.priceCheckedAt : null,
    costError: null,
  };
  const providerCostUsd = pricing.providerCostUsd;
  if (typeof providerCostUsd === 'number' && Number.isFinite(providerCostUsd)) {
    outcome.providerCostUsd = providerCostUsd;
  }
  if (typeof pricing.priceVersion === 'string') outcome.priceVersion = pricing.priceVersion;
  return outcome;
}

// A checked date is an ISO date; anything else a cost model gives is dropped.
function isIsoDate(value: unknown): value is string {
  return typeof value === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(value);
}

// A tariff reference names the dated entry and its band; anything else is dropped.
function tariffOf(tariff: unknown): TariffRef | null {
  if (!isRecord(tariff) || typeof tariff.entry !== 'string') return null;
  const band = typeof tariff.band === 'string' ? tariff.band : null;
  return Object.freeze({ entry: tariff.entry, band });
}

function endpointPricing(costModel: CostModel, costUsd: unknown): Record<string, unknown> {
  if (costUsd === null || costUsd === undefined) return { costUsd: null };
  const pricingModel = costModel.pricingModel;
  return {
    costUsd,
    pricedAs: typeof pricingModel === 'string' ? pricingModel : null,
    priceSource: 'endpoint',
    tariff: null,
  };
}

function failed(costError: string): PricingOutcome {
  return { ...unpriced, costError };
}

function describeCost(costUsd: unknown): string {
  return typeof costUsd === 'number' ? String(costUsd) : `a ${typeof costUsd}`;
}
