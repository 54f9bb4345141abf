import type { CallPricing, PricedCall } from '@switchboard/adapter';
import { costOf, PRICES_VERSION, type PriceBook, type Prices, providerCostOf } from '@switchboard/prices';

/** What an endpoint prices calls with. */
export interface EndpointPricing {
  readonly book: PriceBook | null;
  readonly prices: Prices | null;
  readonly pricingModel: string | null;
}

// The platform maps its alias to the default model, as the price book does.
function canonical(model: string): string {
  const id = model.trim();
  return id === 'primary-chat' ? 'primary-flash' : id;
}

/**
 * One call's pricing by an endpoint: the book for the call's model, else the
 * endpoint's prices for its pricing model (or for any model when the pricing
 * model is unknown), else the provider's own cost, else unpriced.
 */
export function priceEndpointCall(call: PricedCall, pricing: EndpointPricing): CallPricing {
  const providerCostUsd = providerCostOf(call.usage);
  const booked = pricing.book?.has(call.model) ? pricing.book.priceCall(call) : null;
  if (booked !== null && booked.priceSource === 'table') return booked;
  // A model the book has, but with no tariff in force at `at`, is not priced at a snapshot.
  const usesPricingModel =
    booked === null &&
    (pricing.pricingModel === null || canonical(call.model) === canonical(pricing.pricingModel));
  const costUsd = usesPricingModel ? costOf(pricing.prices, call.usage) : null;
  if (costUsd !== null) {
    return {
      costUsd,
      pricedAs: pricing.pricingModel,
      priceSource: 'endpoint',
      tariff: null,
      providerCostUsd,
      // Hand-made prices are not the package's data: only a book's prices name its version.
      priceVersion: pricing.book === null ? null : PRICES_VERSION,
    };
  }
  if (providerCostUsd === null) {
    return { costUsd: null, pricedAs: null, priceSource: null, tariff: null, providerCostUsd: null };
  }
  return {
    costUsd: providerCostUsd,
    pricedAs: call.model.trim(),
    priceSource: 'provider',
    tariff: null,
    providerCostUsd,
    priceVersion: PRICES_VERSION,
  };
}
