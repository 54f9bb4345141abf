import type { ChatResponse, PriceSource } from '@switchboard/adapter';
import { formatUsd } from '../format.js';
import { safeText } from '../terminal-text.js';

/** How a response's calls were priced, as `chat` shows it. */
export interface CallPricingSummary {
  /** The response's cost (the sum of its calls'), or null when none was priced. */
  readonly costUsd: number | null;
  /** The same in whole nano-dollars, the exact sum. */
  readonly costNanoUsd: number | null;
  /** The model id whose price was used (the first priced call's), or null. */
  readonly pricedAs: string | null;
  readonly priceSource: PriceSource | null;
  /** The provider's own figure for the calls, when it sent one. */
  readonly providerCostUsd: number | null;
  /** When the price entry that priced the first priced call was last checked, or null. */
  readonly priceCheckedAt: string | null;
}

/** The pricing of a response from its call records (a JSON-mode retry gives two). */
export function callPricing(response: ChatResponse): CallPricingSummary {
  const priced = response.calls.find((call) => call.costUsd !== null);
  let providerCostUsd: number | null = null;
  for (const call of response.calls) {
    if (typeof call.providerCostUsd === 'number')
      providerCostUsd = (providerCostUsd ?? 0) + call.providerCostUsd;
  }
  return {
    costUsd: response.costUsd,
    costNanoUsd: response.costNanoUsd,
    pricedAs: priced?.pricedAs ?? null,
    priceSource: priced?.priceSource ?? null,
    providerCostUsd,
    priceCheckedAt: priced?.priceCheckedAt ?? null,
  };
}

/**
 * Where the price came from, in words: `primary-v4-pro prices, price table`, or, for a price the
 * configuration gave (`configEntry`), `primary-flash prices, [prices."primary-flash"] of switchboard.toml`.
 */
export function describePricing(
  pricing: CallPricingSummary,
  pricingModel: string,
  configEntry: string | null = null,
): string {
  const model = safeText(pricing.pricedAs ?? '');
  const provider =
    pricing.providerCostUsd !== null && pricing.priceSource !== 'provider'
      ? `; the provider reported ${formatUsd(pricing.providerCostUsd)}`
      : '';
  switch (pricing.priceSource) {
    case 'table':
      return `${model} prices, ${configEntry === null ? 'price table' : safeText(configEntry)}${pricing.priceCheckedAt === null ? '' : ` checked ${pricing.priceCheckedAt}`}${provider}`;
    case 'provider':
      return `the provider's reported cost for ${model}`;
    case 'estimate':
      return `an estimate at ${model || safeText(pricingModel)} prices (the stream ended without usage)`;
    default:
      return `priced as ${model || safeText(pricingModel)}, the endpoint's pricing model${provider}`;
  }
}
