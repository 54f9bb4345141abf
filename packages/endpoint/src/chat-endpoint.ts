import type { CallPricing, CostModel, PricedCall } from '@switchboard/adapter';
import { costOf, type PriceBook, type Prices, type PriceTier } from '@switchboard/prices';
import { priceEndpointCall } from './price-endpoint-call.js';
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
  /**
   * The model id `prices` belong to (the endpoint's pricing model); default null.
   * Without a `priceBook`, `prices` apply to this model and to models the shipped
   * table does not know; a model the table knows is priced at its own table price.
   * With a book and no pricing model, they apply to every call the book does not price.
   */
  pricingModel?: string | null;
  /**
   * The price book calls are priced with, by the model each call was made with;
   * default null: the shipped table for the models it knows, `prices` for the
   * pricing model and the rest. `resolveChatEndpoint` gives the shipped table plus
   * the configuration's `[prices."model-id"]` entries.
   */
  priceBook?: PriceBook | null;
}

const PRICE_FIELDS = ['cacheHitPerM', 'inputPerM', 'outputPerM'] as const;

function checkedPrices(prices: Prices | null | undefined): Prices | null {
  if (prices === null || prices === undefined) return null;
  if (typeof prices !== 'object') {
    throw new TypeError(`ChatEndpoint: prices must be a Prices object or null, got ${typeof prices}`);
  }
  for (const field of PRICE_FIELDS) {
    // A negative price would make a bill smaller than it could be.
    if (typeof prices[field] !== 'number' || !Number.isFinite(prices[field]) || prices[field] < 0) {
      throw new TypeError(`ChatEndpoint: prices.${field} must be a finite number >= 0`);
    }
  }
  const tiers = checkedTiers(prices.tiers);
  if (Object.isFrozen(prices) && (tiers === undefined || tiers === prices.tiers)) return prices;
  const flat = pick(prices);
  return Object.freeze(tiers === undefined ? flat : { ...flat, tiers });
}

// Prompt-size tiers: each threshold a whole number above the one before, each price a finite number >= 0.
function checkedTiers(tiers: Prices['tiers']): Prices['tiers'] {
  if (tiers === undefined || tiers === null) return undefined;
  if (!Array.isArray(tiers)) throw new TypeError('ChatEndpoint: prices.tiers must be an array of tiers');
  let last = -1;
  const checked = tiers.map((tier: PriceTier) => {
    const threshold = tier?.aboveInputTokens;
    if (!Number.isSafeInteger(threshold) || threshold <= last) {
      throw new TypeError(
        'ChatEndpoint: prices.tiers[].aboveInputTokens must be whole numbers of tokens >= 0, in ascending order',
      );
    }
    last = threshold;
    for (const field of PRICE_FIELDS) {
      if (typeof tier[field] !== 'number' || !Number.isFinite(tier[field]) || tier[field] < 0) {
        throw new TypeError(`ChatEndpoint: prices.tiers[].${field} must be a finite number >= 0`);
      }
    }
    return Object.isFrozen(tier) ? tier : Object.freeze({ aboveInputTokens: threshold, ...pick(tier) });
  });
  const same = Object.isFrozen(tiers) && checked.every((tier, index) => tier === tiers[index]);
  return same ? tiers : Object.freeze(checked);
}

function pick(prices: Prices | PriceTier) {
  return { cacheHitPerM: prices.cacheHitPerM, inputPerM: prices.inputPerM, outputPerM: prices.outputPerM };
}

function checkedPricingModel(model: string | null | undefined): string | null {
  if (model === null || model === undefined) return null;
  if (typeof model !== 'string') {
    throw new TypeError(`ChatEndpoint: pricingModel must be a string or null, got ${typeof model}`);
  }
  return model.trim();
}

function checkedPriceBook(book: PriceBook | null | undefined): PriceBook | null {
  if (book === null || book === undefined) return null;
  // By shape, not instanceof: a second copy of @switchboard/prices in node_modules is still a book.
  if (typeof book !== 'object' || typeof book.priceCall !== 'function' || typeof book.has !== 'function') {
    throw new TypeError('ChatEndpoint: priceBook must be a PriceBook from @switchboard/prices or null');
  }
  return book;
}

/**
 * The record of where model calls go. Instances are frozen, and the
 * record never holds an API key: printing or serialising it is safe.
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

  // Private: the record's journalled form stays provider, baseUrl, thinking and prices.
  readonly #pricingModel: string | null;
  readonly #priceBook: PriceBook | null;

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
    this.#pricingModel = checkedPricingModel(init.pricingModel);
    this.#priceBook = checkedPriceBook(init.priceBook);
    Object.freeze(this);
  }

  /** The model id {@link ChatEndpoint.prices} belong to, or null when unknown. Not part of the JSON form. */
  get pricingModel(): string | null {
    return this.#pricingModel;
  }

  /** The book calls are priced with, or null. Not part of the JSON form. */
  get priceBook(): PriceBook | null {
    return this.#priceBook;
  }

  /**
   * Prices one raw call by the model it was made with. With a price book: the
   * book's price for that model at `at` (`'table'`); else the endpoint's own prices
   * when the call used the pricing model, or when the pricing model is unknown
   * (`'endpoint'`). Without a book: the endpoint's prices for the pricing model,
   * the shipped table's price for any other model it knows (`'table'`), the
   * endpoint's prices for models it does not know. Then the provider's `usage.cost`
   * (`'provider'`); else unpriced (`costUsd: null`), never an invented price. The
   * provider's figure is kept as `providerCostUsd` whenever it sent one.
   */
  priceCall(call: PricedCall): CallPricing {
    return priceEndpointCall(call, {
      book: this.#priceBook,
      prices: this.prices,
      pricingModel: this.#pricingModel,
      // The scripted client makes no paid call: its record prices nothing.
      shippedTable: this.provider !== 'scripted',
    });
  }

  /** The USD cost of one usage entry by the cost rule; null without prices or for a usage that is not a plain object. */
  cost(usage: unknown): number | null {
    return costOf(this.prices, usage);
  }
}
