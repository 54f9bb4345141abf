import { checkPrices, fail, SNAKE_KEYS, timeOf } from './check-input.js';
import { type CompiledEntry, compileEntry } from './compile-entry.js';
import { costAt } from './cost-of.js';
import { maxPriceBetween, priceAt } from './price-at.js';
import { PRICE_TABLE } from './price-table.js';
import type { Prices } from './prices.js';
import { PRICES_VERSION } from './prices-version.js';
import { providerCostOf } from './provider-cost-of.js';
import type { PriceEntry, PricingOptions, PricingTime, TariffRef } from './tariff.js';

/** A price entry as the configuration file writes it: `[prices."model-id"]`. */
export interface PriceConfigEntry {
  readonly cache_hit_per_m: number;
  readonly input_per_m: number;
  readonly output_per_m: number;
}

/** Entries keyed by model id. */
export type PriceEntries<Entry> = Readonly<Record<string, Entry>>;

/** What a book prices a model at, at some time. */
export interface BookPrice {
  /** The model id priced as (trimmed; an alias's target). */
  readonly model: string;
  readonly prices: Prices;
  /** The dated tariff and band, or null for flat prices. */
  readonly tariff: TariffRef | null;
}

/** What a book costs one usage entry at. */
export interface BookCost {
  readonly costUsd: number;
  readonly pricedAs: string;
  readonly tariff: TariffRef | null;
}

/** One raw call to price: the model it was made with, its usage, and its time (default now). */
export interface CallToPrice {
  readonly model: string;
  readonly usage: unknown;
  readonly at?: PricingTime;
}

/**
 * How one call was priced; the same shape as `CallPricing` of `@switchboard/adapter`
 * (kept here so this package depends on nothing).
 */
export interface CallPricing {
  /** The book's cost when it knows the model, else the provider's `usage.cost`, else null. */
  readonly costUsd: number | null;
  /** The model id whose price was used (the book's id, or the model as sent for the provider's cost). */
  readonly pricedAs: string | null;
  readonly priceSource: 'table' | 'provider' | null;
  readonly tariff: TariffRef | null;
  /** The provider's own `usage.cost`, or null when it sent none. */
  readonly providerCostUsd: number | null;
  /** `PRICES_VERSION` when the call was priced, else null. */
  readonly priceVersion: string | null;
}

const TABLE_ENTRIES = [...PRICE_TABLE].map(([model, prices]) => [model, { prices, ref: null }] as const);

/**
 * The prices a run is costed with: `PRICE_TABLE` plus entries from code and from
 * the configuration, each flat or a history of dated tariffs. Later entries
 * replace earlier ones of the same id. Immutable: `with` returns a new book.
 * Entries are checked when added (TypeError naming the model and field).
 */
export class PriceBook {
  #entries = new Map<string, CompiledEntry>(TABLE_ENTRIES);

  /** The table's entries plus `entries` (camelCase `Prices` or `{ tariffs }`). */
  constructor(entries?: PriceEntries<PriceEntry>) {
    this.#add(entries, (entry, model) => compileEntry(entry, `price "${model}"`));
  }

  #add<Entry>(
    entries: PriceEntries<Entry> = {},
    compile: (entry: Entry, model: string) => CompiledEntry,
  ): this {
    for (const [model, entry] of Object.entries(entries)) {
      this.#entries.set(model.trim(), compile(entry, model.trim()));
    }
    return this;
  }

  #copy(): PriceBook {
    // `this.constructor`, not the class name: a class that names itself is renamed in the bundle.
    const book: PriceBook = new (this.constructor as new () => PriceBook)();
    book.#entries = new Map(this.#entries);
    return book;
  }

  /** A new book with these entries from code added (replacing entries of the same id). */
  with(entries: PriceEntries<PriceEntry>): PriceBook {
    return this.#copy().#add(entries, (entry, model) => compileEntry(entry, `price "${model}"`));
  }

  /** A new book with these configuration entries (snake_case) added. */
  withConfig(config?: PriceEntries<PriceConfigEntry>): PriceBook {
    return this.#copy().#add(config, (entry, model) => ({
      prices: checkPrices(entry, `prices."${model}"`, SNAKE_KEYS),
      ref: null,
    }));
  }

  /** The model ids the book prices (aliases not included). */
  models(): string[] {
    return [...this.#entries.keys()];
  }

  #lookup(model: string): [string, CompiledEntry] | null {
    if (typeof model !== 'string') return null;
    let id = model.trim();
    let entry = this.#entries.get(id);
    if (!entry) {
      // The platform maps its alias `primary-chat` to the default model.
      if (id === 'primary-chat') id = 'primary-flash';
      entry = this.#entries.get(id);
    }
    return entry ? [id, entry] : null;
  }

  /** Whether the book has an entry for the model (trimmed, aliases followed), at any time. */
  has(model: string): boolean {
    return this.#lookup(model) !== null;
  }

  /** The prices in force for a model at `options.at` (default now), or null when it has none then. */
  priceOf(model: string, options?: PricingOptions): BookPrice | null {
    const found = this.#lookup(model);
    const priced = found && priceAt(found[1], timeOf(options?.at, 'at'));
    return (
      priced && { model: (found as [string, CompiledEntry])[0], prices: priced.prices, tariff: priced.ref }
    );
  }

  /** The cost of one usage entry of a call on `model` at `options.at`, or null (unpriced, or usage not a plain object). */
  costOf(model: string, usage: unknown, options?: PricingOptions): BookCost | null {
    const price = this.priceOf(model, options);
    const costUsd = price && costAt(price.prices, usage);
    return costUsd === null || price === null
      ? null
      : { costUsd, pricedAs: price.model, tariff: price.tariff };
  }

  /**
   * The dearest price of each kind a call on `model` could be charged between
   * `from` and `until` (both default: unbounded), for worst-case reservations:
   * every band of every tariff in force in the range counts. Null when unpriced.
   */
  maxPricesOf(
    model: string,
    options?: { readonly from?: PricingTime; readonly until?: PricingTime },
  ): Prices | null {
    const found = this.#lookup(model);
    const from = timeOf(options?.from, 'from', -Infinity);
    const until = timeOf(options?.until, 'until', Infinity);
    return found && maxPriceBetween(found[1], from, until);
  }

  /**
   * Prices one raw call: the book's price for its model when it has one
   * (`priceSource: 'table'`), else the provider's `usage.cost` (`'provider'`),
   * else unpriced (`costUsd: null`). The provider's cost is kept as
   * `providerCostUsd` either way, so a report can show the difference.
   */
  priceCall(call: CallToPrice): CallPricing {
    const local = this.costOf(call.model, call.usage, { at: call.at ?? Date.now() });
    const providerCostUsd = providerCostOf(call.usage);
    const source = local ? 'table' : providerCostUsd === null ? null : 'provider';
    return {
      costUsd: local ? local.costUsd : providerCostUsd,
      pricedAs: local ? local.pricedAs : source && call.model.trim(),
      priceSource: source,
      tariff: local?.tariff ?? null,
      providerCostUsd,
      priceVersion: source && PRICES_VERSION,
    };
  }
}
