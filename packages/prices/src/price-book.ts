import { CAMEL_KEYS, checkPrices, checkProvenance, SNAKE_KEYS, timeOf } from './check-input.js';
import { type CompiledEntry, type CompiledTariff, compileEntry } from './compile-entry.js';
import {
  type AnnouncedPrice,
  type ConfigTariff,
  compileConfigHistory,
  type PriceConfigTariff,
  readConfigTariffs,
} from './config-tariffs.js';
import { costAt } from './cost-of.js';
import {
  checkStaleAfterDays,
  DEFAULT_STALE_AFTER_DAYS,
  type PriceEntryOrigin,
  priceAgeDays,
  warnStalePrice,
} from './price-age.js';
import { maxPriceBetween, priceAt } from './price-at.js';
import { unconfirmed, warnPriceDrift } from './price-drift.js';
import { PRICE_TABLE, PRICE_TABLE_PROVENANCE } from './price-table.js';
import type { PriceProvenance, Prices } from './prices.js';
import { PRICES_VERSION } from './prices-version.js';
import { providerCostOf } from './provider-cost-of.js';
import type { PriceEntry, PricingOptions, PricingTime, TariffRef } from './tariff.js';

/** A prompt-size tier as the configuration file writes it: `[[prices."model-id".tiers]]`. */
export interface PriceConfigTier {
  readonly above_input_tokens: number;
  readonly cache_hit_per_m: number;
  readonly input_per_m: number;
  readonly output_per_m: number;
}

/** A price entry as the configuration file writes it: `[prices."model-id"]`. */
export interface PriceConfigEntry {
  readonly cache_hit_per_m: number;
  readonly input_per_m: number;
  readonly output_per_m: number;
  /** Prices above prompt-size thresholds, in ascending order of `above_input_tokens`. */
  readonly tiers?: readonly PriceConfigTier[];
  /** When the price was last checked: an ISO date (`'2026-11-20'`, or a TOML date). */
  readonly checked_at?: string | Date;
  /** Where it was read (default: the configuration itself); kept only with `checked_at`. */
  readonly source?: string;
  /**
   * Dated changes of this price (`[[prices."model-id".tariffs]]`): each in force from its
   * `effective_from` until the next; one still to come is announced. `cancelled = true`
   * calls off the change of the same `effective_from`.
   */
  readonly tariffs?: readonly PriceConfigTariff[];
}

/** Options of a {@link PriceBook}. */
export interface PriceBookOptions {
  /**
   * A call priced from an entry checked more than this many days before the call warns
   * (`SWITCHBOARD_STALE_PRICE`, once per model per process); default 90; `Infinity`: never.
   */
  readonly staleAfterDays?: number;
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
  /** The `checkedAt` of the entry that priced the call, or null (no such date, or not priced by the book). */
  readonly priceCheckedAt: string | null;
}

const TABLE_ENTRIES = [...PRICE_TABLE].map(([model, prices]) => [model, { prices, ref: null }] as const);

/** Where the book's own entries come from when they say no `source`. */
const CODE_SOURCE = 'a PriceBook entry given in code';
const configSource = (model: string) => `the configuration's [prices.${JSON.stringify(model)}]`;
const CODE: PriceEntryOrigin = Object.freeze({ kind: 'code' });
const TABLE: PriceEntryOrigin = Object.freeze({ kind: 'table' });

/**
 * The prices a run is costed with: `PRICE_TABLE` plus entries from code and from
 * the configuration, each flat or a history of dated tariffs. Later entries
 * replace earlier ones of the same id. Immutable: `with` returns a new book.
 * Entries are checked when added (TypeError naming the model and field).
 */
export class PriceBook {
  #entries = new Map<string, CompiledEntry>(TABLE_ENTRIES);
  #provenance = new Map<string, PriceProvenance>(PRICE_TABLE_PROVENANCE);
  /** Where each entry not from the shipped table came from, for the warnings that name it. */
  #origins = new Map<string, PriceEntryOrigin>();
  /** The dated changes of configuration entries, cancelled ones included. */
  #dated = new Map<string, readonly ConfigTariff[]>();
  #staleAfterDays = DEFAULT_STALE_AFTER_DAYS;

  /**
   * The table's entries plus `entries` (camelCase `Prices` or `{ tariffs }`, each with
   * an optional `checkedAt` and `source`).
   */
  constructor(entries?: PriceEntries<PriceEntry>, options?: PriceBookOptions) {
    if (options?.staleAfterDays !== undefined)
      this.#staleAfterDays = checkStaleAfterDays(options.staleAfterDays, 'staleAfterDays');
    this.#add(entries, (entry, model) => compileEntry(entry, `price "${model}"`), codeProvenance, CODE);
  }

  #add<Entry>(
    entries: PriceEntries<Entry> = {},
    compile: (entry: Entry, model: string) => CompiledEntry,
    provenance: (entry: Entry, model: string) => PriceProvenance | null,
    origin: PriceEntryOrigin,
  ): this {
    for (const [key, entry] of Object.entries(entries)) {
      const model = key.trim();
      // A blank id prices nothing: an entry that would vanish unnoticed.
      if (model === '') throw new TypeError(`price ${JSON.stringify(key)}: the model id must not be blank`);
      this.#dated.delete(model);
      this.#entries.set(model, compile(entry, model));
      this.#origins.set(model, origin);
      // An entry without a checked date replaces the one before it, date and all.
      const checked = provenance(entry, model);
      if (checked === null) this.#provenance.delete(model);
      else this.#provenance.set(model, checked);
    }
    return this;
  }

  #copy(): PriceBook {
    // `this.constructor`, not the class name: a class that names itself is renamed in the bundle.
    const book: PriceBook = new (this.constructor as new () => PriceBook)();
    book.#entries = new Map(this.#entries);
    book.#provenance = new Map(this.#provenance);
    book.#origins = new Map(this.#origins);
    book.#dated = new Map(this.#dated);
    book.#staleAfterDays = this.#staleAfterDays;
    return book;
  }

  /** A new book with these entries from code added (replacing entries of the same id). */
  with(entries: PriceEntries<PriceEntry>): PriceBook {
    return this.#copy().#add(
      entries,
      (entry, model) => compileEntry(entry, `price "${model}"`),
      codeProvenance,
      CODE,
    );
  }

  /**
   * A new book with these configuration entries (snake_case, `tiers`, `checked_at` and `source` too)
   * added. `options.file` names the configuration file they were read from, so a warning about one
   * of them (a stale price) points at `[prices."id"]` of that file.
   */
  withConfig(config?: PriceEntries<PriceConfigEntry>, options?: { readonly file?: string }): PriceBook {
    const book = this.#copy();
    return book.#add(
      config,
      (entry, model) => {
        const field = `prices."${model}"`;
        const tariffs = readConfigTariffs(entry.tariffs, `${field}.tariffs`);
        if (tariffs.length > 0) book.#dated.set(model, tariffs);
        return compileConfigHistory(checkPrices(entry, field, SNAKE_KEYS), tariffs);
      },
      (entry, model) => checkProvenance(entry, `prices."${model}"`, SNAKE_KEYS, configSource(model)),
      Object.freeze({ kind: 'config', file: options?.file ?? null }),
    );
  }

  /** A new book with these options (the entries unchanged). */
  withOptions(options: PriceBookOptions): PriceBook {
    const book = this.#copy();
    if (options.staleAfterDays !== undefined)
      book.#staleAfterDays = checkStaleAfterDays(options.staleAfterDays, 'staleAfterDays');
    return book;
  }

  /** The age in days past which a call priced from an entry warns (default 90). */
  get staleAfterDays(): number {
    return this.#staleAfterDays;
  }

  /**
   * Where and when the price of a model was read (trimmed, aliases followed), or null
   * when the book has no entry for it or its entry gives no checked date.
   */
  provenanceOf(model: string): PriceProvenance | null {
    const found = this.#lookup(model);
    return found === null ? null : (this.#provenance.get(found[0]) ?? null);
  }

  /**
   * The dated changes of a model's price that take effect after `options.at` (default
   * now), in order: announced changes, with where they were announced; a configuration's
   * cancelled ones included (`cancelled: true`, `prices: null`). Empty for flat prices.
   */
  announcedOf(model: string, options?: PricingOptions): AnnouncedPrice[] {
    const found = this.#lookup(model);
    if (found === null) return [];
    const at = timeOf(options?.at, 'at');
    const dated = this.#dated.get(found[0]);
    if (dated !== undefined) {
      return dated
        .filter((change) => change.from > at)
        .map(({ from: _, ...change }) => Object.freeze(change));
    }
    if (!Array.isArray(found[1])) return [];
    const provenance = this.#provenance.get(found[0]);
    return (found[1] as readonly CompiledTariff[])
      .filter((tariff) => tariff.from > at)
      .map((tariff) =>
        Object.freeze({
          effectiveFrom: new Date(tariff.from).toISOString(),
          prices: tariff.base.prices,
          source: provenance?.source ?? null,
          checkedAt: provenance?.checkedAt ?? null,
          cancelled: false,
        }),
      );
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

  /** A call priced at a configuration's dated change that no check confirmed since it took effect: warn. */
  #warnIfAnnounced(model: string, entry: string): void {
    const change = this.#dated.get(model)?.find((tariff) => tariff.effectiveFrom === entry);
    if (change === undefined || !unconfirmed(change)) return;
    const origin = this.#origins.get(model);
    warnPriceDrift(model, change, origin?.kind === 'config' ? origin.file : null);
  }

  /**
   * Prices one raw call: the book's price for its model when it has one
   * (`priceSource: 'table'`, with the entry's `priceCheckedAt`), else the provider's
   * `usage.cost` (`'provider'`), else unpriced (`costUsd: null`). The provider's cost
   * is kept as `providerCostUsd` either way, so a report can show the difference.
   * A call priced from an entry checked more than `staleAfterDays` before `at` warns
   * (`SWITCHBOARD_STALE_PRICE`), once per model per process; one priced at a configuration's
   * dated change last checked before it took effect warns (`SWITCHBOARD_PRICE_DRIFT`), once
   * per model and change.
   */
  priceCall(call: CallToPrice): CallPricing {
    const at = timeOf(call.at, 'at');
    const local = this.costOf(call.model, call.usage, { at });
    const providerCostUsd = providerCostOf(call.usage);
    const source = local ? 'table' : providerCostUsd === null ? null : 'provider';
    const provenance = local ? (this.#provenance.get(local.pricedAs) ?? null) : null;
    if (provenance !== null) {
      const ageDays = priceAgeDays(provenance.checkedAt, at);
      if (ageDays > this.#staleAfterDays)
        warnStalePrice(
          local?.pricedAs as string,
          provenance.checkedAt,
          ageDays,
          this.#staleAfterDays,
          this.#origins.get(local?.pricedAs as string) ?? TABLE,
        );
    }
    if (local?.tariff) this.#warnIfAnnounced(local.pricedAs, local.tariff.entry);
    return {
      costUsd: local ? local.costUsd : providerCostUsd,
      pricedAs: local ? local.pricedAs : source && call.model.trim(),
      priceSource: source,
      tariff: local?.tariff ?? null,
      providerCostUsd,
      priceVersion: source && PRICES_VERSION,
      priceCheckedAt: provenance?.checkedAt ?? null,
    };
  }
}

function codeProvenance(entry: PriceEntry, model: string): PriceProvenance | null {
  return checkProvenance(entry, `price "${model}"`, CAMEL_KEYS, CODE_SOURCE);
}
