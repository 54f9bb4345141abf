import type { CallPricing, PricedCall } from '@switchboard/adapter';
import { costOf, PRICES_VERSION, PriceBook, type Prices, providerCostOf } from '@switchboard/prices';

/** What an endpoint prices calls with. */
export interface EndpointPricing {
  readonly book: PriceBook | null;
  readonly prices: Prices | null;
  readonly pricingModel: string | null;
  /** Without a book, price the models the shipped table knows at their table prices (not for a scripted record). */
  readonly shippedTable: boolean;
}

// The platform maps its alias to the default model, as the price book does.
function canonical(model: string): string {
  const id = model.trim();
  return id === 'primary-chat' ? 'primary-flash' : id;
}

/** The shipped table as a book, made on first use: what a hand-built endpoint without a book prices other models with. */
let shippedTable: PriceBook | null = null;
function shippedBook(): PriceBook {
  shippedTable ??= new PriceBook();
  return shippedTable;
}

/**
 * One call's pricing by an endpoint. With a book: the book's price for the
 * call's model, else the endpoint's prices for its pricing model (or for any
 * model when the pricing model is unknown). Without a book (a hand-built
 * endpoint): the endpoint's prices for its pricing model, the shipped table's
 * price for a model the table knows, the endpoint's prices for any other model.
 * Then the provider's own cost, else unpriced.
 */
export function priceEndpointCall(call: PricedCall, pricing: EndpointPricing): CallPricing {
  const providerCostUsd = providerCostOf(call.usage);
  const onPricingModel =
    pricing.pricingModel !== null && canonical(call.model) === canonical(pricing.pricingModel);
  // The code's own prices win for its pricing model; a book given in code wins for every model it has.
  const book =
    pricing.book ??
    (!pricing.shippedTable || (onPricingModel && pricing.prices !== null) ? null : shippedBook());
  const booked = book?.has(call.model) ? book.priceCall(call) : null;
  if (booked !== null && booked.priceSource === 'table') return booked;
  // A model the book has, but with no tariff in force at `at`, is not priced at a snapshot.
  const usesEndpointPrices =
    booked === null && (onPricingModel || pricing.pricingModel === null || pricing.book === null);
  const costUsd = usesEndpointPrices ? costOf(pricing.prices, call.usage) : null;
  if (costUsd !== null) {
    return {
      costUsd,
      pricedAs: pricing.pricingModel,
      priceSource: 'endpoint',
      tariff: null,
      providerCostUsd,
      // Hand-made prices are not the package's data: only a book's prices name its version.
      priceVersion: pricing.book === null ? null : PRICES_VERSION,
      // Prices given to the endpoint carry no checked date.
      priceCheckedAt: null,
    };
  }
  if (providerCostUsd === null) {
    return {
      costUsd: null,
      pricedAs: null,
      priceSource: null,
      tariff: null,
      providerCostUsd: null,
      priceCheckedAt: null,
    };
  }
  return {
    costUsd: providerCostUsd,
    pricedAs: call.model.trim(),
    priceSource: 'provider',
    tariff: null,
    providerCostUsd,
    priceVersion: PRICES_VERSION,
    priceCheckedAt: null,
  };
}
