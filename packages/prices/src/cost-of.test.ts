import { describe, expect, it } from 'vitest';
import { costOf, tokensOf } from './cost-of.js';
import { priceOf } from './price-table.js';
import type { Prices } from './prices.js';

const flash = priceOf('primary-flash') as Prices;
const pro = priceOf('primary-v4-pro') as Prices;
const unit: Prices = { cacheHitPerM: 1_000_000, inputPerM: 1_000_000, outputPerM: 1_000_000 };

describe('costOf', () => {
  describe("the spec's worked numbers", () => {
    it('costs 1M hit + 1M miss + 1M output on primary-flash at 1.774 USD', () => {
      const usage = {
        prompt_cache_hit_tokens: 1_000_000,
        prompt_cache_miss_tokens: 1_000_000,
        completion_tokens: 1_000_000,
      };
      expect(costOf(flash, usage)).toBeCloseTo(1.774, 12);
    });

    it('costs prompt_tokens-only usage as all misses', () => {
      const cost = costOf(flash, { prompt_tokens: 1_000_000, completion_tokens: 0 });
      expect(cost).toBeCloseTo(0.44, 12);
    });

    it('costs primary-v4-pro at its own prices', () => {
      const usage = {
        prompt_cache_hit_tokens: 2_000_000,
        prompt_cache_miss_tokens: 0,
        completion_tokens: 500_000,
      };
      expect(costOf(pro, usage)).toBeCloseTo(0.088 + 1.98, 12);
    });
  });

  describe('no cost', () => {
    it('is null when the model has no price', () => {
      expect(costOf(priceOf('unknown-model'), { prompt_tokens: 10 })).toBeNull();
    });

    it.each([null, undefined, [], [1, 2], 'usage', 12, true])('is null when usage is %j', (usage) => {
      expect(costOf(flash, usage)).toBeNull();
    });

    it('is null for a class instance, which is not a plain usage mapping', () => {
      expect(costOf(flash, new Date())).toBeNull();
    });
  });

  describe('input tokens', () => {
    it('uses prompt_cache_miss_tokens when present, ignoring prompt_tokens', () => {
      const usage = { prompt_tokens: 999, prompt_cache_hit_tokens: 2, prompt_cache_miss_tokens: 3 };
      expect(costOf(unit, usage)).toBe(5);
    });

    it('uses prompt_tokens minus cache hits when the miss count is absent', () => {
      expect(costOf(unit, { prompt_tokens: 10, prompt_cache_hit_tokens: 4 })).toBe(4 + 6);
    });

    it('treats a null miss count as absent', () => {
      expect(
        costOf(unit, { prompt_tokens: 10, prompt_cache_hit_tokens: 4, prompt_cache_miss_tokens: null }),
      ).toBe(10);
    });

    it('keeps a present but non-numeric miss count as 0 misses', () => {
      expect(
        costOf(unit, { prompt_tokens: 10, prompt_cache_hit_tokens: 4, prompt_cache_miss_tokens: 'x' }),
      ).toBe(4);
    });

    it('never counts fewer than zero misses when hits exceed prompt_tokens', () => {
      expect(costOf(unit, { prompt_tokens: 3, prompt_cache_hit_tokens: 5 })).toBe(5);
    });
  });

  describe('token counts', () => {
    it('counts an absent field as 0', () => {
      expect(costOf(unit, {})).toBe(0);
      expect(costOf(unit, { completion_tokens: 7 })).toBe(7);
    });

    it.each([['12'], [true], [Number.NaN], [Number.POSITIVE_INFINITY], [{}], [[3]]])(
      'counts the non-finite or non-numeric value %j as 0',
      (value) => {
        expect(costOf(unit, { completion_tokens: value, prompt_cache_miss_tokens: 1 })).toBe(1);
      },
    );

    it('truncates fractional counts toward zero', () => {
      expect(
        costOf(unit, {
          prompt_cache_hit_tokens: 2.9,
          prompt_cache_miss_tokens: 1.5,
          completion_tokens: 0.99,
        }),
      ).toBe(3);
    });

    it('counts negative values as 0 so a bill is never made smaller', () => {
      expect(
        costOf(unit, { prompt_cache_hit_tokens: -5, prompt_cache_miss_tokens: 2, completion_tokens: -1 }),
      ).toBe(2);
    });

    it('reads usage objects without a prototype', () => {
      const usage = Object.assign(Object.create(null), { completion_tokens: 4 });
      expect(costOf(unit, usage)).toBe(4);
    });
  });

  it('never throws, returning null for a usage object whose fields cannot be read', () => {
    const usage = {
      get completion_tokens(): number {
        throw new Error('unreadable');
      },
    };
    expect(costOf(flash, usage)).toBeNull();
  });
});

describe('tokensOf', () => {
  it('reads the billed counts the cost rule uses', () => {
    expect(tokensOf({ prompt_tokens: 10, prompt_cache_hit_tokens: 4, completion_tokens: 2.7 })).toEqual({
      cacheHit: 4,
      input: 6,
      output: 2,
    });
  });

  it('is null for usage that is not a plain object', () => {
    expect(tokensOf([1])).toBeNull();
    expect(tokensOf('usage')).toBeNull();
  });
});
