import { describe, expect, it } from 'vitest';
import { costOf } from './cost-of.js';
import { nanoUsdOf } from './nano-usd.js';
import { PriceBook } from './price-book.js';
import { maxPrices, maxPricesUpToInput, pricesAtInput } from './price-tiers.js';
import type { Prices } from './prices.js';
import type { TariffHistory } from './tariff.js';

// A made-up long-context cliff: past 128k billed input tokens the whole call costs double, cache hits included.
const TIERED: Prices = {
  cacheHitPerM: 0.1,
  inputPerM: 1,
  outputPerM: 4,
  tiers: [
    { aboveInputTokens: 128_000, cacheHitPerM: 0.2, inputPerM: 2, outputPerM: 8 },
    { aboveInputTokens: 1_000_000, cacheHitPerM: 0.5, inputPerM: 5, outputPerM: 20 },
  ],
};

const nano = (usd: number | null | undefined) => (usd === null || usd === undefined ? null : nanoUsdOf(usd));

describe('prompt-size tiers', () => {
  it('price the whole call at the base up to and including the threshold', () => {
    // 28,000 hits + 100,000 misses = 128,000 billed input tokens: not above 128k.
    const usage = {
      prompt_cache_hit_tokens: 28_000,
      prompt_cache_miss_tokens: 100_000,
      completion_tokens: 10_000,
    };
    // 28000*0.1 + 100000*1 + 10000*4 = 2800 + 100000 + 40000 = 142800 micro-dollars.
    expect(nano(costOf(TIERED, usage))).toBe(142_800_000);
  });

  it('price the whole call at the tier once billed input passes it, cache hits and output included', () => {
    const usage = {
      prompt_cache_hit_tokens: 28_000,
      prompt_cache_miss_tokens: 100_001,
      completion_tokens: 10_000,
    };
    // 28000*0.2 + 100001*2 + 10000*8 = 5600 + 200002 + 80000 = 285602 micro-dollars.
    expect(nano(costOf(TIERED, usage))).toBe(285_602_000);
  });

  it('count cache hits toward the threshold (prompt_tokens with cached_tokens too)', () => {
    const usage = {
      prompt_tokens: 128_001,
      prompt_tokens_details: { cached_tokens: 128_000 },
      completion_tokens: 0,
    };
    // 128000*0.2 + 1*2 = 25602 micro-dollars.
    expect(nano(costOf(TIERED, usage))).toBe(25_602_000);
  });

  it('take the highest threshold passed', () => {
    const usage = { prompt_cache_miss_tokens: 1_000_001, completion_tokens: 1 };
    // 1000001*5 + 1*20 = 5000025 micro-dollars.
    expect(nano(costOf(TIERED, usage))).toBe(5_000_025_000);
    expect(pricesAtInput(TIERED, 1_000_001)).toBe(TIERED.tiers?.[1]);
    expect(pricesAtInput(TIERED, 0)).toBe(TIERED);
  });

  it('are checked when added to a book, in ascending order, and kept frozen', () => {
    const book = new PriceBook({ tiered: TIERED });
    const priced = book.priceOf('tiered')?.prices;
    expect(priced).toEqual(TIERED);
    expect(Object.isFrozen(priced?.tiers)).toBe(true);
    expect(Object.isFrozen(priced?.tiers?.[0])).toBe(true);
    expect(book.costOf('tiered', { prompt_cache_miss_tokens: 200_000 })?.costUsd).toBe(0.4);
    const tier = (aboveInputTokens: unknown, inputPerM: unknown = 1) => ({
      aboveInputTokens,
      cacheHitPerM: 0,
      inputPerM,
      outputPerM: 1,
    });
    const bad = (tiers: unknown) => () => new PriceBook({ m: { ...TIERED, tiers } as never });
    expect(bad([tier(10), tier(10)])).toThrow(
      'price "m".tiers[].aboveInputTokens must be in ascending order, each threshold once (10 after 10)',
    );
    expect(bad([tier(20), tier(10)])).toThrow('in ascending order');
    expect(bad([tier(-1)])).toThrow(
      'price "m".tiers[].aboveInputTokens must be a whole number of tokens >= 0',
    );
    expect(bad([tier(1.5)])).toThrow('a whole number of tokens >= 0');
    expect(bad([tier(10, Infinity)])).toThrow('price "m".tiers[].inputPerM must be a finite number >= 0');
    expect(bad('128k')).toThrow('price "m".tiers must be an array of tiers');
    expect(new PriceBook({ m: { ...TIERED, tiers: [] } }).priceOf('m')?.prices).toEqual({
      cacheHitPerM: 0.1,
      inputPerM: 1,
      outputPerM: 4,
    });
  });

  it('come from the configuration as [[prices."id".tiers]] in snake_case', () => {
    const book = new PriceBook().withConfig({
      'lab-model': {
        cache_hit_per_m: 0.1,
        input_per_m: 1,
        output_per_m: 4,
        tiers: [{ above_input_tokens: 128_000, cache_hit_per_m: 0.2, input_per_m: 2, output_per_m: 8 }],
      },
    });
    expect(book.priceOf('lab-model')?.prices.tiers).toEqual([TIERED.tiers?.[0]]);
    expect(() =>
      new PriceBook().withConfig({
        m: {
          cache_hit_per_m: 0,
          input_per_m: 1,
          output_per_m: 1,
          tiers: [{ above_input_tokens: 5 }] as never,
        },
      }),
    ).toThrow('prices."m".tiers[].cache_hit_per_m must be a finite number >= 0');
  });

  it('compose with dated tariffs: a tariff entry may be tiered', () => {
    const history: TariffHistory = {
      tariffs: [
        {
          id: 'flat',
          effectiveFrom: '2026-01-01T00:00:00Z',
          prices: { cacheHitPerM: 0.1, inputPerM: 1, outputPerM: 4 },
        },
        { id: 'cliff', effectiveFrom: '2026-06-01T00:00:00Z', prices: TIERED },
      ],
    };
    const book = new PriceBook({ dated: history });
    const usage = { prompt_cache_miss_tokens: 200_000 };
    expect(nano(book.costOf('dated', usage, { at: '2026-05-31T23:59:59Z' })?.costUsd)).toBe(200_000_000);
    expect(book.costOf('dated', usage, { at: '2026-06-01T00:00:00Z' })).toEqual({
      costUsd: 0.4,
      pricedAs: 'dated',
      tariff: { entry: 'cliff', band: null },
    });
    expect(nano(costOf(history, usage, { at: '2026-07-01T00:00:00Z' }))).toBe(400_000_000);
  });

  it('compose with time-of-day bands: a band may be tiered', () => {
    const book = new PriceBook({
      banded: {
        tariffs: [
          {
            effectiveFrom: '2026-01-01T00:00:00Z',
            prices: { cacheHitPerM: 0.1, inputPerM: 1, outputPerM: 4 },
            schedule: {
              timeZone: 'UTC',
              bands: [{ name: 'night', prices: TIERED, windows: [{ from: '00:00', until: '06:00' }] }],
            },
          },
        ],
      },
    });
    const usage = { prompt_cache_miss_tokens: 200_000 };
    expect(book.costOf('banded', usage, { at: '2026-03-01T03:00:00Z' })?.costUsd).toBe(0.4);
    expect(book.costOf('banded', usage, { at: '2026-03-01T12:00:00Z' })?.costUsd).toBe(0.2);
  });
});

describe('worst cases with tiers', () => {
  it('maxPrices keeps the dearest price of each kind at every prompt size', () => {
    const other: Prices = {
      cacheHitPerM: 0.3,
      inputPerM: 0.5,
      outputPerM: 6,
      tiers: [{ aboveInputTokens: 64_000, cacheHitPerM: 0.3, inputPerM: 3, outputPerM: 6 }],
    };
    expect(maxPrices([TIERED, other])).toEqual({
      cacheHitPerM: 0.3,
      inputPerM: 1,
      outputPerM: 6,
      tiers: [
        { aboveInputTokens: 64_000, cacheHitPerM: 0.3, inputPerM: 3, outputPerM: 6 },
        { aboveInputTokens: 128_000, cacheHitPerM: 0.3, inputPerM: 3, outputPerM: 8 },
        { aboveInputTokens: 1_000_000, cacheHitPerM: 0.5, inputPerM: 5, outputPerM: 20 },
      ],
    });
    expect(
      maxPrices([
        { cacheHitPerM: 1, inputPerM: 0, outputPerM: 0 },
        { cacheHitPerM: 0, inputPerM: 2, outputPerM: 3 },
      ]),
    ).toEqual({
      cacheHitPerM: 1,
      inputPerM: 2,
      outputPerM: 3,
    });
  });

  it('maxPricesUpToInput gives the dearest flat prices a prompt bound can reach', () => {
    expect(maxPricesUpToInput(TIERED, 128_000)).toEqual({ cacheHitPerM: 0.1, inputPerM: 1, outputPerM: 4 });
    expect(maxPricesUpToInput(TIERED, 128_001)).toEqual({ cacheHitPerM: 0.2, inputPerM: 2, outputPerM: 8 });
    expect(maxPricesUpToInput(TIERED, 5_000_000)).toEqual({
      cacheHitPerM: 0.5,
      inputPerM: 5,
      outputPerM: 20,
    });
    const flat = { cacheHitPerM: 1, inputPerM: 2, outputPerM: 3 };
    expect(maxPricesUpToInput(flat, 1e9)).toBe(flat);
  });

  it('a book’s maxPricesOf keeps the tiers of every tariff in the range', () => {
    const book = new PriceBook({
      dated: {
        tariffs: [
          {
            effectiveFrom: '2026-01-01T00:00:00Z',
            prices: { cacheHitPerM: 0.1, inputPerM: 1.5, outputPerM: 4 },
          },
          { effectiveFrom: '2026-06-01T00:00:00Z', prices: TIERED },
        ],
      },
    });
    expect(book.maxPricesOf('dated', { from: '2026-07-01T00:00:00Z' })).toEqual(TIERED);
    expect(book.maxPricesOf('dated')?.inputPerM).toBe(1.5);
    expect(book.maxPricesOf('dated')?.tiers?.[0]).toEqual({
      aboveInputTokens: 128_000,
      cacheHitPerM: 0.2,
      inputPerM: 2,
      outputPerM: 8,
    });
  });
});
