import { describe, expect, it } from 'vitest';
import { BERLIN, NIGHT, OFF_PEAK, PEAK, SHANGHAI, STANDARD } from './__fixtures__/tariffs.js';
import { PriceBook } from './price-book.js';
import type { PricingTime } from './tariff.js';

const book = new PriceBook({ 'shanghai-chat': SHANGHAI, 'berlin-chat': BERLIN });
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

function bandAt(model: string, at: PricingTime): string | null | undefined {
  const price = book.priceOf(model, { at });
  return price === null ? undefined : price.tariff?.band;
}

/** The local day number and minute of a UTC instant at a fixed offset (the tests' own reference, no Intl). */
function local(time: number, offsetHours: number): { day: number; minute: number; weekday: number } {
  const shifted = time + offsetHours * HOUR;
  const day = Math.floor(shifted / DAY);
  return { day, minute: Math.floor((shifted - day * DAY) / 60_000), weekday: ((day + 3) % 7) + 1 };
}

const weekdayOfDay = (day: number) => ((day + 3) % 7) + 1;

describe('PriceBook with dated tariffs', () => {
  describe('a platform-like history in Asia/Shanghai (off-peak nightly, peak on weekdays but holidays)', () => {
    it('prices every half hour of a week at the band the rules give', () => {
      const start = Date.parse('2026-03-02T00:00:00+08:00'); // a Monday, no holiday that week
      const seen = new Map<string, number>();
      for (let step = 0; step < 7 * 48; step++) {
        const at = start + step * 30 * 60_000;
        const { minute, weekday } = local(at, 8);
        const expected =
          minute >= 22 * 60 + 30 || minute < 6 * 60 + 30
            ? 'off-peak'
            : weekday <= 5 && ((minute >= 540 && minute < 720) || (minute >= 840 && minute < 1080))
              ? 'peak'
              : 'standard';
        expect([new Date(at).toISOString(), bandAt('shanghai-chat', at)]).toEqual([
          new Date(at).toISOString(),
          expected,
        ]);
        seen.set(expected, (seen.get(expected) ?? 0) + 1);
      }
      // 8 h of off-peak a day, 7 h of peak on 5 days, the rest standard.
      expect(Object.fromEntries(seen)).toEqual({
        'off-peak': 7 * 16,
        peak: 5 * 14,
        standard: 336 - 112 - 70,
      });
    });

    it('costs each band at its own prices, and names the tariff entry', () => {
      const usage = { prompt_cache_hit_tokens: 1e6, prompt_cache_miss_tokens: 1e6, completion_tokens: 1e6 };
      const cost = (at: string) => book.costOf('shanghai-chat', usage, { at });
      expect(cost('2026-03-04T10:00:00+08:00')).toEqual({
        costUsd: 6.2,
        pricedAs: 'shanghai-chat',
        tariff: { entry: 'peak-2026', band: 'peak' },
      });
      expect(cost('2026-03-04T13:00:00+08:00')?.costUsd).toBeCloseTo(3.1, 12);
      expect(cost('2026-03-04T23:00:00+08:00')?.costUsd).toBeCloseTo(1.55, 12);
      expect(book.priceOf('shanghai-chat', { at: '2026-03-04T10:00:00+08:00' })?.prices).toEqual(PEAK);
    });

    it.each([
      ['2026-03-04T22:29:59.999+08:00', 'standard'],
      ['2026-03-04T22:30:00+08:00', 'off-peak'],
      ['2026-03-04T23:59:59.999+08:00', 'off-peak'],
      ['2026-03-05T00:00:00+08:00', 'off-peak'],
      ['2026-03-05T06:29:59.999+08:00', 'off-peak'],
      ['2026-03-05T06:30:00+08:00', 'standard'],
      ['2026-03-05T08:59:59.999+08:00', 'standard'],
      ['2026-03-05T09:00:00+08:00', 'peak'],
      ['2026-03-05T11:59:59.999+08:00', 'peak'],
      ['2026-03-05T12:00:00+08:00', 'standard'],
      ['2026-03-05T14:00:00+08:00', 'peak'],
      ['2026-03-05T17:59:59.999+08:00', 'peak'],
      ['2026-03-05T18:00:00+08:00', 'standard'],
      ['2026-03-07T10:00:00+08:00', 'standard'], // Saturday
      ['2026-03-08T23:00:00+08:00', 'off-peak'], // Sunday night: off-peak is every day
    ])('window edges: %s is %s', (at, band) => {
      expect(bandAt('shanghai-chat', at)).toBe(band);
    });

    it('takes Date, ISO string and epoch milliseconds alike', () => {
      const at = '2026-03-05T09:00:00+08:00';
      expect(bandAt('shanghai-chat', new Date(at))).toBe('peak');
      expect(bandAt('shanghai-chat', Date.parse(at))).toBe('peak');
    });

    describe('holidays', () => {
      it.each([
        ['2026-04-30T10:00:00+08:00', 'peak'], // Thursday before Labour Day
        ['2026-05-01T10:00:00+08:00', 'standard'], // a holiday (a Friday): no peak
        ['2026-05-01T23:00:00+08:00', 'off-peak'], // off-peak does not depend on holidays
        ['2026-05-04T15:00:00+08:00', 'standard'], // a Monday holiday
        ['2026-05-05T15:00:00+08:00', 'peak'],
        ['2026-10-01T09:00:00+08:00', 'standard'],
      ])('%s is %s', (at, band) => {
        expect(bandAt('shanghai-chat', at)).toBe(band);
      });
    });

    describe("outside the holiday calendar's coverage (2026-01-05 to 2026-12-31)", () => {
      it('prices a weekday peak hour at the dearest band it could be, flagged unknown', () => {
        for (const at of [
          '2026-01-02T10:00:00+08:00',
          '2027-01-01T10:00:00+08:00',
          '2027-01-04T17:59:00+08:00',
        ]) {
          expect(book.priceOf('shanghai-chat', { at })).toEqual({
            model: 'shanghai-chat',
            prices: PEAK,
            tariff: { entry: 'peak-2026', band: 'unknown' },
          });
        }
      });

      it('knows the band when holidays cannot change it', () => {
        expect(bandAt('shanghai-chat', '2027-01-02T10:00:00+08:00')).toBe('standard'); // Saturday
        expect(bandAt('shanghai-chat', '2027-01-01T23:00:00+08:00')).toBe('off-peak');
        expect(bandAt('shanghai-chat', '2027-01-01T13:00:00+08:00')).toBe('standard'); // between the windows
      });

      it('is exact on both edges of the coverage', () => {
        expect(bandAt('shanghai-chat', '2026-01-04T23:59:59.999+08:00')).toBe('off-peak');
        expect(bandAt('shanghai-chat', '2026-01-05T10:00:00+08:00')).toBe('peak'); // first covered day
        expect(bandAt('shanghai-chat', '2026-12-31T17:59:59.999+08:00')).toBe('peak'); // last covered day
        expect(bandAt('shanghai-chat', '2027-01-01T09:00:00+08:00')).toBe('unknown'); // first day past it
      });
    });

    describe('effectiveFrom edges', () => {
      it.each([
        ['2024-12-31T15:59:59.999Z', undefined], // before the first tariff: unpriced
        ['2024-12-31T16:00:00.000Z', null], // flat-2025 has no schedule: band null
        ['2025-06-30T23:00:00+08:00', null],
        ['2025-07-01T00:00:00+08:00', 'off-peak'],
        ['2025-12-31T23:59:59.999+08:00', 'off-peak'],
        ['2026-01-01T00:00:00+08:00', 'off-peak'],
      ])('%s has band %j', (at, band) => {
        expect(bandAt('shanghai-chat', at)).toBe(band);
      });

      it('names the tariff in force on each side of a change', () => {
        const entry = (at: string) => book.priceOf('shanghai-chat', { at })?.tariff?.entry;
        expect(entry('2025-12-31T12:00:00+08:00')).toBe('off-peak-2025');
        expect(entry('2026-01-01T12:00:00+08:00')).toBe('peak-2026');
        expect(entry('2025-03-01T12:00:00Z')).toBe('flat-2025');
        expect(book.priceOf('shanghai-chat', { at: '2025-03-01T12:00:00Z' })?.tariff).toEqual({
          entry: 'flat-2025',
          band: null,
        });
      });
    });
  });

  describe('a tariff in Europe/Berlin (daylight saving; a night band across midnight)', () => {
    function expectedBerlin(time: number, offsetHours: number): string {
      const { day, minute, weekday } = local(time, offsetHours);
      if (minute >= 60 && minute < 180) return 'early';
      if ((minute >= 1320 && weekday <= 5) || (minute < 360 && weekdayOfDay(day - 1) <= 5)) return 'night';
      return 'standard';
    }

    it.each([
      ['spring forward', '2026-03-23T00:00:00+01:00', '2026-03-29T01:00:00Z', 1, 2],
      ['fall back', '2026-10-19T00:00:00+02:00', '2026-10-25T01:00:00Z', 2, 1],
    ])(
      'prices every quarter hour of the week of the %s change at wall-clock time',
      (_, from, change, before, after) => {
        const start = Date.parse(from);
        const switchAt = Date.parse(change);
        for (let step = 0; step < 8 * 96; step++) {
          const at = start + step * 15 * 60_000;
          const expected = expectedBerlin(at, at < switchAt ? before : after);
          expect([new Date(at).toISOString(), bandAt('berlin-chat', at)]).toEqual([
            new Date(at).toISOString(),
            expected,
          ]);
        }
      },
    );

    it('has one early hour on the spring-forward night and three on the fall-back night', () => {
      const earlyHours = (from: string) => {
        let count = 0;
        for (let at = Date.parse(from); at < Date.parse(from) + DAY; at += 15 * 60_000) {
          if (bandAt('berlin-chat', at) === 'early') count++;
        }
        return count / 4;
      };
      expect(earlyHours('2026-03-28T22:00:00Z')).toBe(1);
      expect(earlyHours('2026-10-24T22:00:00Z')).toBe(3);
      expect(earlyHours('2026-06-10T22:00:00Z')).toBe(2);
    });

    it.each([
      ['2026-03-29T00:59:59.999Z', 'early'], // 01:59:59 CET
      ['2026-03-29T01:00:00Z', 'standard'], // 03:00 CEST: 02:00-03:00 never happened
      ['2026-10-24T23:00:00Z', 'early'], // 01:00 CEST
      ['2026-10-25T00:30:00Z', 'early'], // 02:30 CEST
      ['2026-10-25T01:30:00Z', 'early'], // 02:30 CET, the second time
      ['2026-10-25T02:00:00Z', 'standard'], // 03:00 CET
    ])('DST transitions: %s is %s', (at, band) => {
      expect(bandAt('berlin-chat', at)).toBe(band);
    });

    it.each([
      ['2026-03-06T21:59:00+01:00', 'standard'], // Friday before the window
      ['2026-03-06T22:00:00+01:00', 'night'], // Friday night
      ['2026-03-07T05:59:00+01:00', 'night'], // Saturday morning: the window started on Friday
      ['2026-03-07T06:00:00+01:00', 'standard'],
      ['2026-03-07T23:00:00+01:00', 'standard'], // Saturday night: no window starts on Saturday
      ['2026-03-09T05:00:00+01:00', 'standard'], // Monday morning: the window would have started on Sunday
      ['2026-03-09T22:00:00+01:00', 'night'],
    ])('midnight crossing: %s is %s', (at, band) => {
      expect(bandAt('berlin-chat', at)).toBe(band);
    });

    it('takes the holiday of the day a window started on, and flags the day after the coverage unknown', () => {
      expect(bandAt('berlin-chat', '2026-12-24T23:00:00+01:00')).toBe('night'); // Thursday night
      expect(bandAt('berlin-chat', '2026-12-25T05:00:00+01:00')).toBe('night'); // started on Thursday
      expect(bandAt('berlin-chat', '2026-12-25T23:00:00+01:00')).toBe('standard'); // a holiday night
      expect(bandAt('berlin-chat', '2026-12-31T23:00:00+01:00')).toBe('night'); // last covered day
      expect(bandAt('berlin-chat', '2027-01-01T03:00:00+01:00')).toBe('night'); // started on a covered day
      // Friday 2027-01-01 is past the coverage: the discount might not apply, so no discount.
      for (const at of ['2027-01-01T22:00:00+01:00', '2027-01-02T03:00:00+01:00']) {
        expect(book.priceOf('berlin-chat', { at })).toMatchObject({
          prices: STANDARD,
          tariff: { band: 'unknown' },
        });
      }
      expect(bandAt('berlin-chat', '2027-01-02T02:00:00+01:00')).toBe('early'); // checked first, no holiday rule
    });

    it('is unpriced past effectiveUntil', () => {
      expect(bandAt('berlin-chat', '2027-06-30T12:00:00+02:00')).toBe('standard');
      expect(bandAt('berlin-chat', '2027-06-30T23:59:59.999+02:00')).toBe('unknown'); // a night past the coverage
      expect(book.priceOf('berlin-chat', { at: '2027-07-01T00:00:00+02:00' })).toBeNull();
      expect(book.costOf('berlin-chat', { completion_tokens: 1 }, { at: '2027-08-01T00:00:00Z' })).toBeNull();
      expect(book.has('berlin-chat')).toBe(true);
    });
  });

  describe('maxPricesOf', () => {
    it('is the dearest price of each kind over the tariffs in force in the range', () => {
      expect(book.maxPricesOf('shanghai-chat')).toEqual(PEAK);
      expect(book.maxPricesOf('shanghai-chat', { until: '2025-12-31T00:00:00Z' })).toEqual(STANDARD);
      expect(
        book.maxPricesOf('shanghai-chat', { from: '2025-12-31T00:00:00Z', until: '2026-01-02T00:00:00Z' }),
      ).toEqual(PEAK);
      expect(book.maxPricesOf('berlin-chat', { from: '2028-01-01T00:00:00Z' })).toBeNull();
      expect(book.maxPricesOf('primary-v4-pro')).toBe(book.priceOf('primary-v4-pro')?.prices);
      expect(book.maxPricesOf('nope')).toBeNull();
      expect([NIGHT, OFF_PEAK]).not.toContain(book.maxPricesOf('berlin-chat'));
    });
  });
});
