import { describe, expect, it } from 'vitest';
import { SHANGHAI } from './__fixtures__/tariffs.js';
import { PriceBook } from './price-book.js';
import { PRICE_TABLE } from './price-table.js';
import { PRICES_VERSION } from './prices-version.js';
import type { HolidayCalendar, Tariff } from './tariff.js';

const flash = PRICE_TABLE.get('primary-flash');
const pro = PRICE_TABLE.get('primary-v4-pro');
const custom = { cacheHitPerM: 1, inputPerM: 2, outputPerM: 3 };
const usage = { prompt_cache_hit_tokens: 1e6, prompt_cache_miss_tokens: 1e6, completion_tokens: 1e6 };

describe('PriceBook', () => {
  describe('the table', () => {
    it('prices the spec ids flat, with no tariff, at any time', () => {
      const book = new PriceBook();
      for (const [model, prices] of PRICE_TABLE) {
        expect(book.priceOf(model, { at: 0 })).toEqual({ model, prices, tariff: null });
        expect(book.priceOf(` ${model}\n`)?.prices).toBe(prices);
      }
      expect(book.models()).toEqual([...PRICE_TABLE.keys()]);
    });

    it("maps the platform alias 'primary-chat' to the default model", () => {
      const book = new PriceBook();
      expect(book.priceOf(' primary-chat ')).toEqual({ model: 'primary-flash', prices: flash, tariff: null });
      expect(book.has('primary-chat')).toBe(true);
      expect(book.costOf('primary-chat', usage)).toEqual({
        costUsd: 1.774,
        pricedAs: 'primary-flash',
        tariff: null,
      });
    });

    it.each(['constructor', '__proto__', 'toString', 'hasOwnProperty', '', '  ', 'PRIMARY-FLASH'])(
      'knows nothing of %j',
      (model) => {
        const book = new PriceBook();
        expect(book.has(model)).toBe(false);
        expect(book.priceOf(model)).toBeNull();
        expect(book.costOf(model, usage)).toBeNull();
      },
    );

    it('returns null, never throws, for a model that is not a string', () => {
      expect(new PriceBook().priceOf(42 as unknown as string)).toBeNull();
    });
  });

  describe('entries from code', () => {
    it('adds and replaces entries, trimming ids; the book it came from is unchanged', () => {
      const base = new PriceBook({ ' my-model ': custom });
      const book = base.with({ 'primary-flash': custom });
      expect(base.priceOf('my-model')?.prices).toEqual(custom);
      expect(base.priceOf('primary-flash')?.prices).toBe(flash);
      expect(book.priceOf('primary-flash')?.prices).toEqual(custom);
      expect(book.priceOf('my-model')?.prices).toEqual(custom);
      expect(book.priceOf('primary-chat')).toMatchObject({ model: 'primary-flash', prices: custom });
      expect(Object.isFrozen(book.priceOf('my-model')?.prices)).toBe(true);
      expect(book).toBeInstanceOf(PriceBook);
    });

    it("prices an explicit 'primary-chat' entry as itself", () => {
      expect(new PriceBook({ 'primary-chat': custom }).priceOf('primary-chat')?.model).toBe('primary-chat');
    });

    it.each([
      [{ m: { ...custom, inputPerM: -1 } }, 'price "m".inputPerM must be a finite number >= 0'],
      [{ m: { ...custom, outputPerM: Number.NaN } }, 'price "m".outputPerM must be a finite number >= 0'],
      [{ m: { ...custom, cacheHitPerM: Number.POSITIVE_INFINITY } }, 'price "m".cacheHitPerM must be'],
      [{ m: { ...custom, inputPerM: '2' } }, 'price "m".inputPerM must be'],
      [{ m: null }, 'price "m".cacheHitPerM must be'],
    ])('rejects bad prices, naming the model and field: %j', (entries, message) => {
      expect(() => new PriceBook(entries as never)).toThrow(message);
      expect(() => new PriceBook().with(entries as never)).toThrow(TypeError);
    });

    it.each([
      [{ effectiveFrom: 'soon', prices: custom }, 'price "m".tariffs[].effectiveFrom must be'],
      [
        { effectiveFrom: '2026-02-01', effectiveUntil: '2026-01-01', prices: custom },
        'price "m".tariffs must be in order, without overlaps (2026-02-01)',
      ],
      [{ effectiveFrom: '2026-01-01', prices: { ...custom, inputPerM: -2 } }, '.tariffs[].prices.inputPerM'],
      [
        { effectiveFrom: '2026-01-01', prices: custom, schedule: { timeZone: 'Mars/Olympus', bands: [] } },
        '.tariffs[].schedule.timeZone must be an IANA timezone',
      ],
      [
        { effectiveFrom: '2026-01-01', prices: custom, schedule: { timeZone: 'UTC', bands: [] } },
        '.tariffs[].schedule.bands must be a non-empty array',
      ],
      [band({ windows: [{ from: '25:00', until: '02:00' }] }), '.bands[].windows[].from must be'],
      [band({ windows: [{ from: '10:00', until: '10:60' }] }), '.bands[].windows[].until must be'],
      [
        band({ windows: [{ from: '10:00', until: '10:00' }] }),
        '.bands[].windows[].until must be another time than from',
      ],
      [
        band({ windows: [{ from: '24:00', until: '02:00' }] }),
        '.bands[].windows[].until must be another time than from',
      ],
      [band({ windows: [] }), '.bands[].windows must be a non-empty array'],
      [band({ weekdays: [0] }), '.bands[].weekdays must be ISO weekdays'],
      [band({ weekdays: [1.5] }), '.bands[].weekdays must be ISO weekdays'],
      [band({ prices: { ...custom, outputPerM: -1 } }), '.bands[].prices.outputPerM must be'],
      [
        calendar({ dates: ['2026-02-30'], coverage: { from: '2026-01-01', until: '2026-12-31' } }),
        ".holidays.dates[] must be 'YYYY-MM-DD'",
      ],
    ])('rejects a bad tariff, naming the field: %#', (tariff, message) => {
      expect(() => new PriceBook({ m: { tariffs: [tariff as never] } })).toThrow(message);
    });

    it('prices every uncertain time dear when a coverage ends before it starts (covers nothing)', () => {
      const book = new PriceBook({
        m: { tariffs: [calendar({ dates: [], coverage: { from: '2026-12-31', until: '2026-01-01' } })] },
      });
      expect(book.priceOf('m', { at: '2026-06-01T00:00:00Z' })?.tariff?.band).toBe('standard');
      const exceptHolidays = new PriceBook({
        m: {
          tariffs: [
            {
              effectiveFrom: '2026-01-01',
              prices: custom,
              schedule: {
                timeZone: 'UTC',
                bands: [
                  {
                    name: 'cheap',
                    prices: { ...custom, inputPerM: 0 },
                    windows: [{ from: '00:00', until: '24:00' }],
                    exceptHolidays: true,
                  },
                ],
                holidays: { dates: [], coverage: { from: '2026-12-31', until: '2026-01-01' } },
              },
            },
          ],
        },
      });
      expect(exceptHolidays.priceOf('m', { at: '2026-06-01T00:00:00Z' })).toMatchObject({
        prices: custom,
        tariff: { band: 'unknown' },
      });
    });

    it('throws a TypeError for a calendar without its dates', () => {
      expect(() => new PriceBook({ m: { tariffs: [calendar({ coverage: {} }) as never] } })).toThrow(
        TypeError,
      );
    });

    it('rejects overlapping tariffs and an empty history', () => {
      const overlap = [
        { effectiveFrom: '2026-01-01', effectiveUntil: '2026-03-01', prices: custom },
        { effectiveFrom: '2026-02-01', prices: custom },
      ];
      expect(() => new PriceBook({ m: { tariffs: overlap } })).toThrow(
        'price "m".tariffs must be in order, without overlaps',
      );
      const twice = [
        { effectiveFrom: '2026-01-01', prices: custom },
        { effectiveFrom: '2026-01-01T00:00:00Z', prices: custom },
      ];
      expect(() => new PriceBook({ m: { tariffs: twice } })).toThrow('without overlaps');
      expect(() => new PriceBook({ m: { tariffs: [] } })).toThrow(
        'price "m".tariffs must be a non-empty array',
      );
    });

    it('leaves a gap after an effectiveUntil unpriced, and wants tariffs in order', () => {
      const early = {
        id: 'early',
        effectiveFrom: '2026-01-01',
        effectiveUntil: '2026-02-01',
        prices: custom,
      };
      const later = { id: 'later', effectiveFrom: '2026-06-01', prices: custom };
      const book = new PriceBook({ m: { tariffs: [early, later] } });
      expect(book.priceOf('m', { at: '2026-01-31T23:59:59.999Z' })?.tariff).toEqual({
        entry: 'early',
        band: null,
      });
      expect(book.priceOf('m', { at: '2026-02-01' })).toBeNull();
      expect(book.priceOf('m', { at: '2026-06-01' })?.tariff?.entry).toBe('later');
      expect(() => new PriceBook({ m: { tariffs: [later, early] } })).toThrow('must be in order');
    });

    it('rejects a bad pricing time, naming it', () => {
      expect(() => new PriceBook().priceOf('primary-flash', { at: 'yesterday' })).toThrow(
        'at must be a Date',
      );
      expect(() => new PriceBook().priceOf('primary-flash', { at: new Date(Number.NaN) })).toThrow(TypeError);
      expect(() => new PriceBook().maxPricesOf('primary-flash', { from: Number.NaN })).toThrow(
        'from must be',
      );
    });
  });

  describe('entries from the configuration (snake_case)', () => {
    const config = { 'my-model': { cache_hit_per_m: 0.1, input_per_m: 0.2, output_per_m: 0.3 } };

    it('adds them to the table', () => {
      const book = new PriceBook().withConfig(config);
      expect(book.priceOf('my-model')).toEqual({
        model: 'my-model',
        prices: { cacheHitPerM: 0.1, inputPerM: 0.2, outputPerM: 0.3 },
        tariff: null,
      });
      expect(book.priceOf('primary-v4-pro')?.prices).toBe(pro);
      expect(new PriceBook({ other: custom }).withConfig(config).models()).toContain('other');
      expect(new PriceBook().withConfig().models()).toEqual([...PRICE_TABLE.keys()]);
    });

    it('names the bad field by its configuration path', () => {
      expect(() =>
        new PriceBook().withConfig({ m: { cache_hit_per_m: 0, input_per_m: -1, output_per_m: 0 } }),
      ).toThrow('prices."m".input_per_m must be a finite number >= 0');
      expect(() =>
        new PriceBook().withConfig({ m: { cacheHitPerM: 1, inputPerM: 1, outputPerM: 1 } as never }),
      ).toThrow('prices."m".cache_hit_per_m');
    });
  });

  describe('priceCall', () => {
    const book = new PriceBook({ 'shanghai-chat': SHANGHAI });

    it('prices a known model from the book, keeping the provider cost beside it', () => {
      expect(
        book.priceCall({ model: ' primary-v4-pro ', usage: { ...usage, cost: 9 }, at: new Date() }),
      ).toEqual({
        costUsd: 0.044 + 1.32 + 3.96,
        pricedAs: 'primary-v4-pro',
        priceSource: 'table',
        tariff: null,
        providerCostUsd: 9,
        priceVersion: PRICES_VERSION,
        priceCheckedAt: '2026-11-22',
      });
    });

    it('names the tariff and band of a dated entry', () => {
      const priced = book.priceCall({ model: 'shanghai-chat', usage, at: '2026-03-04T10:00:00+08:00' });
      expect(priced).toMatchObject({
        costUsd: 6.2,
        priceSource: 'table',
        tariff: { entry: 'peak-2026', band: 'peak' },
      });
    });

    it("falls back to the provider's usage.cost for a model the book does not know", () => {
      expect(book.priceCall({ model: 'gateway/other', usage: { prompt_tokens: 5, cost: 0.0012 } })).toEqual({
        costUsd: 0.0012,
        pricedAs: 'gateway/other',
        priceSource: 'provider',
        tariff: null,
        providerCostUsd: 0.0012,
        priceVersion: PRICES_VERSION,
        priceCheckedAt: null,
      });
    });

    it('leaves a call unpriced, never inventing a price', () => {
      const unpriced = {
        costUsd: null,
        pricedAs: null,
        priceSource: null,
        tariff: null,
        providerCostUsd: null,
        priceVersion: null,
        priceCheckedAt: null,
      };
      expect(book.priceCall({ model: 'some-other-model', usage: { prompt_tokens: 5 } })).toEqual(unpriced);
      expect(book.priceCall({ model: 'some-other-model', usage: { cost: -1 } })).toEqual(unpriced);
      expect(book.priceCall({ model: 'shanghai-chat', usage, at: '2024-01-01T00:00:00Z' })).toEqual(unpriced);
    });

    it('costs the OpenAI usage shape with cached tokens as cache hits', () => {
      const openAiShape = {
        prompt_tokens: 1_000_000,
        completion_tokens: 0,
        prompt_tokens_details: { cached_tokens: 600_000 },
      };
      expect(book.priceCall({ model: 'primary-flash', usage: openAiShape }).costUsd).toBeCloseTo(
        0.6 * 0.014 + 0.4 * 0.44,
        12,
      );
    });
  });
});

function band(overrides: Record<string, unknown>) {
  return {
    effectiveFrom: '2026-01-01',
    prices: custom,
    schedule: {
      timeZone: 'UTC',
      bands: [{ name: 'b', prices: custom, windows: [{ from: '01:00', until: '02:00' }], ...overrides }],
    },
  };
}

function calendar(holidays: unknown): Tariff {
  const tariff = band({});
  return { ...tariff, schedule: { ...tariff.schedule, holidays: holidays as HolidayCalendar } };
}
