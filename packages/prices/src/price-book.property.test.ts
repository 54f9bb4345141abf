import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BERLIN, SHANGHAI } from './__fixtures__/tariffs.js';
import { PriceBook } from './price-book.js';
import { PRICE_TABLE } from './price-table.js';
import type { Prices } from './prices.js';
import type { Tariff, TariffHistory } from './tariff.js';

const RUNS = { numRuns: 2_000 };
const book = new PriceBook({ 'shanghai-chat': SHANGHAI, 'berlin-chat': BERLIN });
const KINDS = ['cacheHitPerM', 'inputPerM', 'outputPerM'] as const;

/** Any time from 2024 to 2028, in milliseconds: before, inside and after the fixtures' tariffs and calendars. */
const anyTime = fc.integer({
  min: Date.parse('2024-06-01T00:00:00Z'),
  max: Date.parse('2028-06-01T00:00:00Z'),
});
const model = fc.constantFrom('shanghai-chat', 'berlin-chat');

function bandPrices(history: TariffHistory): Map<string, Prices[]> {
  const prices = new Map<string, Prices[]>();
  for (const tariff of history.tariffs) {
    const list = [tariff.prices, ...(tariff.schedule?.bands.map((band) => band.prices) ?? [])];
    prices.set(tariff.id ?? tariff.effectiveFrom, list);
  }
  return prices;
}

const histories = { 'shanghai-chat': SHANGHAI, 'berlin-chat': BERLIN };

/** The same history with every calendar made to cover every date, holding the day `day` as a holiday or not. */
function withKnownCalendar(history: TariffHistory, holiday: string | null): TariffHistory {
  return {
    tariffs: history.tariffs.map((tariff): Tariff => {
      const calendar = tariff.schedule?.holidays;
      if (!tariff.schedule || !calendar) return tariff;
      const dates = holiday ? [...calendar.dates, holiday] : calendar.dates;
      return {
        ...tariff,
        schedule: {
          ...tariff.schedule,
          holidays: { dates, coverage: { from: '2000-01-01', until: '2099-12-31' } },
        },
      };
    }),
  };
}

const dearerOrEqual = (high: Prices, low: Prices) => KINDS.every((kind) => high[kind] >= low[kind]);

describe('PriceBook (property-based)', () => {
  it("prices any time at one of the tariff's own band prices, or flags 'unknown'", () => {
    fc.assert(
      fc.property(model, anyTime, (id, at) => {
        const price = book.priceOf(id, { at });
        if (price === null) return;
        const tariff = price.tariff;
        expect(tariff).not.toBeNull();
        const candidates = bandPrices(histories[id]).get(tariff?.entry ?? '') ?? [];
        expect(candidates.length).toBeGreaterThan(0);
        if (tariff?.band !== 'unknown') expect(candidates).toContainEqual(price.prices);
      }),
      RUNS,
    );
  });

  it("never prices 'unknown' below what any holiday answer would give", () => {
    fc.assert(
      fc.property(model, anyTime, (id, at) => {
        const price = book.priceOf(id, { at });
        if (price?.tariff?.band !== 'unknown') return;
        const day = (offset: number) => new Date(at + offset).toISOString().slice(0, 10);
        // The local day and the day before, whatever the timezone: holidays on any of these days.
        const days = [null, day(-86_400_000), day(0), day(86_400_000), day(-2 * 86_400_000)];
        for (const holiday of days) {
          const known = new PriceBook({ [id]: withKnownCalendar(histories[id], holiday) }).priceOf(id, {
            at,
          });
          expect(known?.tariff?.band).not.toBe('unknown');
          expect(dearerOrEqual(price.prices, known?.prices as Prices)).toBe(true);
        }
      }),
      { numRuns: 500 },
    );
  });

  it('never prices a call above maxPricesOf for a range that holds it', () => {
    fc.assert(
      fc.property(model, anyTime, fc.nat(30 * 86_400_000), (id, at, span) => {
        const price = book.priceOf(id, { at });
        const max = book.maxPricesOf(id, { from: at - span, until: at + span });
        if (price === null) return;
        expect(dearerOrEqual(max as Prices, price.prices)).toBe(true);
      }),
      RUNS,
    );
  });

  it('prices the spec ids flat at any time', () => {
    fc.assert(
      fc.property(fc.constantFrom(...PRICE_TABLE.keys()), fc.integer(), (id, at) => {
        expect(book.priceOf(id, { at })).toEqual({ model: id, prices: PRICE_TABLE.get(id), tariff: null });
      }),
      RUNS,
    );
  });

  it('agrees with a reference that reads the wall clock from Intl for every time (Berlin, DST included)', () => {
    const clock = new Intl.DateTimeFormat('en-GB', {
      timeZone: 'Europe/Berlin',
      weekday: 'short',
      hour: '2-digit',
      minute: '2-digit',
      hourCycle: 'h23',
    });
    const WEEKDAYS = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'];
    const wall = (at: number) => {
      const parts = Object.fromEntries(clock.formatToParts(at).map((part) => [part.type, part.value]));
      return {
        weekday: WEEKDAYS.indexOf(parts.weekday ?? '') + 1,
        minute: Number(parts.hour) * 60 + Number(parts.minute),
      };
    };
    const inForce = fc.integer({
      min: Date.parse('2026-01-02T00:00:00Z'),
      max: Date.parse('2026-12-20T00:00:00Z'),
    });
    fc.assert(
      fc.property(inForce, (at) => {
        const { weekday, minute } = wall(at);
        // The weekday the night window started on: today's after 22:00, yesterday's before 06:00.
        const started = minute >= 1320 ? weekday : ((weekday + 5) % 7) + 1;
        const expected =
          minute >= 60 && minute < 180
            ? 'early'
            : (minute >= 1320 || minute < 360) && started <= 5
              ? 'night'
              : 'standard';
        // No holiday of the fixture falls before 2026-12-20.
        expect(book.priceOf('berlin-chat', { at })?.tariff?.band).toBe(expected);
      }),
      RUNS,
    );
  });
});
