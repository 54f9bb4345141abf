import { DEFAULT_STALE_AFTER_DAYS, priceAgeDays } from '@switchboard/prices';
import { costNanoUsdOf } from './cost-nano-usd-of.js';
import { NanoSum } from './nano-usd.js';
import type { TelemetryRecord } from './telemetry-record.js';

/** Most stale models a report names. */
const MAX_NAMED = 20;

/** How old the prices a run was costed with were, at each call's time. */
export interface PriceAgeFigures {
  /** The age in days past which a price counts as stale (default 90). */
  readonly staleAfterDays: number;
  /** Calls priced from a price (the table, the configuration, the endpoint's, an estimate): not the provider's own figure. */
  readonly pricedCalls: number;
  /** Of those, calls priced from an entry checked more than `staleAfterDays` before the call. */
  readonly staleCalls: number;
  readonly staleCostNanoUsd: number;
  /** Their cost as an exact decimal with nine places. */
  readonly staleCost: string;
  /** Their share of the cost of the priced calls, or null when those cost nothing. */
  readonly staleShare: number | null;
  /** Calls priced from a price with no checked date (entries without one, older journals): their age is unknown. */
  readonly undatedCalls: number;
  readonly undatedCostNanoUsd: number;
  readonly undatedCost: string;
  /** The earliest checked date of the prices used, or null. */
  readonly oldestCheckedAt: string | null;
  /** Models priced from a stale entry (the first 20 seen). */
  readonly staleModels: readonly string[];
}

const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;

/** Adds up, call by call, how old each call's price was. O(1) per call. */
export class PriceAgeTally {
  readonly #staleAfterDays: number;
  #priced = 0;
  readonly #pricedCost = new NanoSum();
  #stale = 0;
  readonly #staleCost = new NanoSum();
  #undated = 0;
  readonly #undatedCost = new NanoSum();
  #oldest: string | null = null;
  readonly #staleModels = new Set<string>();

  constructor(staleAfterDays = DEFAULT_STALE_AFTER_DAYS) {
    if (typeof staleAfterDays !== 'number' || !(staleAfterDays >= 0))
      throw new RangeError('staleAfterDays must be a number of days >= 0');
    this.#staleAfterDays = staleAfterDays;
  }

  /** Counts a record priced from a price; `at` is its time in epoch ms, `cost` its cost ({@link costNanoUsdOf}). */
  add(record: TelemetryRecord, at: number, cost = costNanoUsdOf(record)): void {
    if (cost === null || record.priceSource === 'provider') return;
    this.#priced += 1;
    this.#pricedCost.add(cost);
    const checkedAt = (record as { readonly priceCheckedAt?: unknown }).priceCheckedAt;
    const age =
      typeof checkedAt === 'string' && ISO_DATE.test(checkedAt) ? priceAgeDays(checkedAt, at) : Number.NaN;
    if (Number.isNaN(age)) {
      this.#undated += 1;
      this.#undatedCost.add(cost);
      return;
    }
    if (this.#oldest === null || (checkedAt as string) < this.#oldest) this.#oldest = checkedAt as string;
    if (age > this.#staleAfterDays) {
      this.#stale += 1;
      this.#staleCost.add(cost);
      if (this.#staleModels.size < MAX_NAMED) this.#staleModels.add(String(record.pricedAs ?? record.model));
    }
  }

  figures(): PriceAgeFigures {
    const total = this.#pricedCost.nanoUsd;
    return Object.freeze({
      staleAfterDays: this.#staleAfterDays,
      pricedCalls: this.#priced,
      staleCalls: this.#stale,
      staleCostNanoUsd: this.#staleCost.nanoUsd,
      staleCost: this.#staleCost.decimal,
      staleShare: total === 0 ? null : this.#staleCost.nanoUsd / total,
      undatedCalls: this.#undated,
      undatedCostNanoUsd: this.#undatedCost.nanoUsd,
      undatedCost: this.#undatedCost.decimal,
      oldestCheckedAt: this.#oldest,
      staleModels: Object.freeze([...this.#staleModels]),
    });
  }
}
