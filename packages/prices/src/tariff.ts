import type { Prices } from './prices.js';

/** A time of day, `'HH:MM'` on a 24-hour clock; `'24:00'` is allowed as the end of a window. */
export type WallClock = string;

/**
 * A daily window of wall-clock time in the schedule's timezone, `from` included,
 * `until` excluded. A window whose `until` is not after its `from` crosses midnight
 * (`{ from: '22:00', until: '06:00' }`); its part after midnight belongs to the day it
 * started on, for weekdays and holidays alike.
 */
export interface TimeWindow {
  readonly from: WallClock;
  readonly until: WallClock;
}

/** One band of a schedule: prices that apply on some weekdays in some daily windows. */
export interface TariffBand {
  /** The band's name, as records report it (`'off-peak'`, `'peak'`, …). */
  readonly name: string;
  readonly prices: Prices;
  /** ISO weekdays the band's windows start on, 1 Monday … 7 Sunday; default every day. */
  readonly weekdays?: readonly number[];
  /** One or more daily windows. */
  readonly windows: readonly TimeWindow[];
  /** When true, the band does not apply on the calendar's holidays (a window starting on one). */
  readonly exceptHolidays?: boolean;
}

/**
 * A holiday calendar and the range of dates it is known to be complete for. A
 * time whose holiday status matters and whose date lies outside `coverage` is
 * priced at the dearest band it could fall in, with `band: 'unknown'`.
 */
export interface HolidayCalendar {
  /** Holidays, `'YYYY-MM-DD'` in the schedule's timezone. */
  readonly dates: readonly string[];
  /** The first and last date (both included, `'YYYY-MM-DD'`) the list is complete for. */
  readonly coverage: { readonly from: string; readonly until: string };
}

/** When bands apply: wall-clock time in an IANA timezone (daylight-saving changes included). */
export interface TariffSchedule {
  /** An IANA timezone, e.g. `'Asia/Shanghai'` or `'Europe/Berlin'`. */
  readonly timeZone: string;
  /** Checked in order: the first band whose window holds the time applies. */
  readonly bands: readonly TariffBand[];
  readonly holidays?: HolidayCalendar;
}

/** One dated tariff of a model: the prices in force from `effectiveFrom`, optionally by time of day. */
export interface Tariff {
  /** A name for records; default `effectiveFrom`. */
  readonly id?: string;
  /** The first instant the tariff is in force: an ISO time (`'2026-03-01T00:00:00Z'`; a bare date is UTC midnight). */
  readonly effectiveFrom: string;
  /** The first instant it is no longer in force (excluded); default: the next tariff's `effectiveFrom`, or never. */
  readonly effectiveUntil?: string;
  /** The prices outside every band (all the time when there is no schedule), band `'standard'` in records. */
  readonly prices: Prices;
  readonly schedule?: TariffSchedule;
}

/** A model's price history: dated tariffs in order of `effectiveFrom`, which must not overlap. */
export interface TariffHistory {
  readonly tariffs: readonly Tariff[];
}

/** Where and when an entry's prices were read, as an entry from code gives them. */
export interface EntryProvenance {
  /** When the prices were last checked: an ISO date, `'YYYY-MM-DD'`. Without it the entry's age is unknown. */
  readonly checkedAt?: string;
  /** Where they were read (a price list, an invoice); default: that the entry was given in code. */
  readonly source?: string;
}

/** A price entry from code: flat prices (tiers included), or a history of dated tariffs; either with its provenance. */
export type PriceEntry = (Prices | TariffHistory) & EntryProvenance;

/**
 * Which dated entry and band priced a call: `entry` is the tariff's `id` (or its
 * `effectiveFrom`); `band` is the band's name, `'unknown'` when a holiday calendar
 * could not tell (priced at the dearest band possible), or null for a tariff
 * without a schedule.
 */
export interface TariffRef {
  readonly entry: string;
  readonly band: string | null;
}

/** The time a call is priced at: a Date, an ISO time string (with its offset or `Z`) or epoch milliseconds. */
export type PricingTime = Date | string | number;

/** Options of the pricing functions. */
export interface PricingOptions {
  /** The call's time; default now. Only dated tariffs look at it. */
  readonly at?: PricingTime;
}
