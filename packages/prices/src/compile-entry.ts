import { checkPrices, fail, timeOf } from './check-input.js';
import { localMinuteOf } from './local-time.js';
import { maxPrices } from './price-tiers.js';
import type { Prices } from './prices.js';
import type { PriceEntry, TariffHistory, TariffRef } from './tariff.js';

/** Prices with the tariff reference records get; precomputed so pricing allocates nothing. */
export interface Priced {
  readonly prices: Prices;
  readonly ref: TariffRef | null;
}

/**
 * A band ready for matching: weekdays as a bit mask (bit 0 Sunday); windows as
 * triples (from minute, until minute, days since the window started), a window
 * across midnight split in two.
 */
export interface CompiledBand extends Priced {
  readonly days: number;
  readonly windows: readonly number[];
  readonly exceptHolidays: boolean;
}

/** A tariff ready for pricing. */
export interface CompiledTariff {
  readonly entry: string;
  readonly from: number;
  readonly until: number;
  readonly base: Priced;
  readonly bands: readonly CompiledBand[];
  readonly timeZone: string | null;
  readonly holidays: ReadonlySet<number> | null;
  /** The calendar's coverage, as day numbers (both included). */
  readonly cover: readonly [number, number];
  /** The dearest price of each kind over the base and every band. */
  readonly max: Prices;
}

/** A price entry ready for pricing: flat, or a history in order of `from`. */
export type CompiledEntry = Priced | readonly CompiledTariff[];

type Input = Record<string, unknown>;

function listOf(value: unknown, field: string): Input[] {
  if (!Array.isArray(value) || value.length === 0) fail(field, 'a non-empty array');
  return value;
}

function minuteOf(value: unknown, field: string): number {
  const [, hour, minute] = /^(\d\d):([0-5]\d)$/.exec(value as string) ?? [];
  const minutes = Number(hour) * 60 + Number(minute);
  if (!(minutes <= 1440)) fail(field, "'HH:MM', at most 24:00");
  return minutes;
}

function dayOf(value: unknown, field: string): number {
  const time = Date.parse(value as string);
  // Date.parse reads other formats too and rolls 2026-02-30 over to March: a date must read back as itself.
  if (Number.isNaN(time) || new Date(time).toISOString().slice(0, 10) !== value) fail(field, "'YYYY-MM-DD'");
  return time / 86_400_000;
}

// Error paths name the entry and the field, without list positions: `price "m".tariffs[].schedule.bands[].name`.
function compileBand(band: Input, field: string, entry: string): CompiledBand {
  const name = band.name as string;
  let days = 0;
  for (const day of (band.weekdays ?? [1, 2, 3, 4, 5, 6, 7]) as number[]) {
    if (!(day >= 1 && day <= 7 && Number.isInteger(day))) fail(`${field}.weekdays`, 'ISO weekdays 1-7');
    days |= 1 << (day % 7);
  }
  const windows = listOf(band.windows, `${field}.windows`).flatMap(({ from, until }) => {
    const start = minuteOf(from, `${field}.windows[].from`);
    const end = minuteOf(until, `${field}.windows[].until`);
    if (start === 1440 || start === end) fail(`${field}.windows[].until`, 'another time than from');
    return start < end ? [start, end, 0] : [start, 1440, 0, 0, end, 1];
  });
  return {
    prices: checkPrices(band.prices, `${field}.prices`),
    ref: Object.freeze({ entry, band: name }),
    days,
    windows,
    exceptHolidays: !!band.exceptHolidays,
  };
}

function compileTariff(tariff: Input, field: string): CompiledTariff {
  const from = timeOf(tariff.effectiveFrom as string, `${field}.effectiveFrom`);
  const until =
    tariff.effectiveUntil === undefined
      ? Infinity
      : timeOf(tariff.effectiveUntil as string, `${field}.effectiveUntil`);
  const entry = (tariff.id ?? tariff.effectiveFrom) as string;
  const prices = checkPrices(tariff.prices, `${field}.prices`);
  const schedule = tariff.schedule as Input | undefined;
  const at = `${field}.schedule`;
  let timeZone: string | null = null;
  let bands: CompiledBand[] = [];
  let holidays: Set<number> | null = null;
  let cover: readonly [number, number] = [0, 0];
  if (schedule) {
    timeZone = schedule.timeZone as string;
    try {
      // Intl takes an absent timezone for the process's own.
      localMinuteOf(typeof timeZone === 'string' ? timeZone : '?', 0);
    } catch {
      fail(`${at}.timeZone`, 'an IANA timezone');
    }
    bands = listOf(schedule.bands, `${at}.bands`).map((band) => compileBand(band, `${at}.bands[]`, entry));
    const calendar = schedule.holidays as { dates: unknown[]; coverage: Input } | undefined;
    if (calendar) {
      holidays = new Set(calendar.dates.map((date) => dayOf(date, `${at}.holidays.dates[]`)));
      // A coverage that ends before it starts covers nothing: every uncertain time is priced dear, never low.
      cover = [
        dayOf(calendar.coverage.from, `${at}.holidays.coverage`),
        dayOf(calendar.coverage.until, `${at}.holidays.coverage`),
      ];
    }
  }
  return {
    entry,
    from,
    until,
    base: { prices, ref: Object.freeze({ entry, band: timeZone && 'standard' }) },
    bands,
    timeZone,
    holidays,
    cover,
    max: maxPrices([prices, ...bands.map((band) => band.prices)]),
  };
}

/**
 * Checks a price entry from code (flat `Prices` or `{ tariffs }`) and compiles it;
 * throws a TypeError naming the bad field (`field` is where the entry came from).
 */
export function compileEntry(value: PriceEntry | unknown, field: string): CompiledEntry {
  const history = (value as TariffHistory | null)?.tariffs;
  if (history === undefined) return { prices: checkPrices(value, field), ref: null };
  const tariffs = listOf(history, `${field}.tariffs`).map((tariff) =>
    compileTariff(tariff, `${field}.tariffs[]`),
  );
  return tariffs.map((tariff, index) => {
    // A tariff without effectiveUntil runs until the next one starts; tariffs come in order and must not overlap.
    const next = tariffs[index + 1]?.from ?? Infinity;
    if (
      !(tariff.until > tariff.from && tariff.from < next) ||
      (tariff.until > next && tariff.until < Infinity)
    ) {
      fail(`${field}.tariffs`, `in order, without overlaps (${tariff.entry})`);
    }
    return tariff.until <= next ? tariff : { ...tariff, until: next };
  });
}
