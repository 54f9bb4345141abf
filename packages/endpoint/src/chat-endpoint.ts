import type { CostModel } from '@switchboard/adapter';
import { costOf, type Prices } from '@switchboard/prices';
import { PROVIDER_KINDS, type ProviderKind } from './provider-kind.js';

/** What a {@link ChatEndpoint} is made from. */
export interface ChatEndpointInit {
  /** The kind of endpoint. */
  provider: ProviderKind;
  /** The address calls go to; `''` for scripted. */
  baseUrl: string;
  /** Whether the provider's reasoning mode is left on. */
  thinking: boolean;
  /** The model's prices; default null (no cost is reported). */
  prices?: Prices | null;
}

const PRICE_FIELDS = ['cacheHitPerM', 'inputPerM', 'outputPerM'] as const;

function checkedPrices(prices: Prices | null | undefined): Prices | null {
  if (prices === null || prices === undefined) return null;
  if (typeof prices !== 'object') {
    throw new TypeError(`ChatEndpoint: prices must be a Prices object or null, got ${typeof prices}`);
  }
  for (const field of PRICE_FIELDS) {
    // A negative price would make a bill smaller than it could be (spec 8, cost rule).
    if (typeof prices[field] !== 'number' || !Number.isFinite(prices[field]) || prices[field] < 0) {
      throw new TypeError(`ChatEndpoint: prices.${field} must be a finite number >= 0`);
    }
  }
  if (Object.isFrozen(prices)) return prices;
  return Object.freeze({
    cacheHitPerM: prices.cacheHitPerM,
    inputPerM: prices.inputPerM,
    outputPerM: prices.outputPerM,
  });
}

/**
 * The record of where model calls go (spec 2.2). Instances are frozen, and the
 * record never holds an API key (spec 1.5, 5.1): printing or serialising it is safe.
 */
export class ChatEndpoint implements CostModel {
  /** The kind of endpoint. */
  readonly provider: ProviderKind;
  /** The address calls go to, without trailing `/`; `''` for scripted. */
  readonly baseUrl: string;
  /** Whether the provider's reasoning mode is left on. */
  readonly thinking: boolean;
  /** The prices of the pricing model, or null when it has none. */
  readonly prices: Prices | null;

  /** @throws {TypeError} for a provider that is not a {@link ProviderKind}, fields of the wrong type, or a negative price. */
  constructor(init: ChatEndpointInit) {
    if (typeof init !== 'object' || init === null) {
      throw new TypeError('ChatEndpoint: expected an object with provider, baseUrl and thinking');
    }
    if (!PROVIDER_KINDS.includes(init.provider)) {
      throw new TypeError(
        `ChatEndpoint: provider must be one of ${PROVIDER_KINDS.join(', ')}, got ${JSON.stringify(init.provider)}`,
      );
    }
    if (typeof init.baseUrl !== 'string') {
      throw new TypeError(`ChatEndpoint: baseUrl must be a string, got ${typeof init.baseUrl}`);
    }
    if (typeof init.thinking !== 'boolean') {
      throw new TypeError(`ChatEndpoint: thinking must be a boolean, got ${typeof init.thinking}`);
    }
    this.provider = init.provider;
    this.baseUrl = init.baseUrl;
    this.thinking = init.thinking;
    this.prices = checkedPrices(init.prices);
    Object.freeze(this);
  }

  /** The USD cost of one usage entry by the spec's cost rule; null without prices or for a usage that is not a plain object. */
  cost(usage: unknown): number | null {
    return costOf(this.prices, usage);
  }
}
