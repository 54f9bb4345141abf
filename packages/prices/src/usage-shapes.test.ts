import { describe, expect, it } from 'vitest';
import { BERLIN, NIGHT, STANDARD } from './__fixtures__/tariffs.js';
import { costOf, tokensOf } from './cost-of.js';
import { priceOf } from './price-table.js';
import type { Prices } from './prices.js';
import { providerCostOf } from './provider-cost-of.js';

const unit: Prices = { cacheHitPerM: 1_000_000, inputPerM: 1_000_000, outputPerM: 1_000_000 };
const cheapHits: Prices = { cacheHitPerM: 0, inputPerM: 1_000_000, outputPerM: 1_000_000 };

describe('other usage shapes (issue 11)', () => {
  describe('prompt_tokens_details.cached_tokens', () => {
    it('counts as cache hits when both primary fields are absent', () => {
      const usage = {
        prompt_tokens: 100,
        completion_tokens: 5,
        prompt_tokens_details: { cached_tokens: 60 },
      };
      expect(tokensOf(usage)).toEqual({ cacheHit: 60, input: 40, output: 5 });
      expect(costOf(cheapHits, usage)).toBe(45);
    });

    it('costs one real reply in the common shape at its cached price, not +54%', () => {
      const flash = priceOf('primary-flash') as Prices;
      const usage = {
        prompt_tokens: 3_000,
        completion_tokens: 200,
        prompt_tokens_details: { cached_tokens: 2_048 },
      };
      expect(costOf(flash, usage)).toBeCloseTo((2_048 * 0.014 + 952 * 0.44 + 200 * 1.32) / 1e6, 15);
    });

    it.each([
      [{ prompt_cache_hit_tokens: 10 }, { cacheHit: 10, input: 90, output: 0 }],
      [{ prompt_cache_miss_tokens: 30 }, { cacheHit: 0, input: 30, output: 0 }],
      [{ prompt_cache_hit_tokens: 0 }, { cacheHit: 0, input: 100, output: 0 }],
    ])('is ignored whenever a primary field is present (%j): the spec rule', (fields, tokens) => {
      expect(
        tokensOf({ prompt_tokens: 100, prompt_tokens_details: { cached_tokens: 60 }, ...fields }),
      ).toEqual(tokens);
    });

    it('treats null primary fields as absent, as the spec rule does for the miss count', () => {
      const usage = {
        prompt_tokens: 100,
        prompt_cache_hit_tokens: null,
        prompt_cache_miss_tokens: null,
        prompt_tokens_details: { cached_tokens: 60 },
      };
      expect(tokensOf(usage)).toEqual({ cacheHit: 60, input: 40, output: 0 });
    });

    it.each([
      [{ cached_tokens: 'x' }, 0],
      [{ cached_tokens: -3 }, 0],
      [{ cached_tokens: 2.9 }, 2],
      [{ cached_tokens: 500 }, 500],
      [null, 0],
      [[60], 0],
      ['60', 0],
    ])('reads cached_tokens like any token count: details %j -> %d hits', (details, hits) => {
      const tokens = tokensOf({ prompt_tokens: 100, prompt_tokens_details: details });
      expect(tokens).toEqual({ cacheHit: hits, input: Math.max(100 - hits, 0), output: 0 });
    });

    it('never throws on details that cannot be read', () => {
      const details = {
        get cached_tokens(): number {
          throw new Error('unreadable');
        },
      };
      expect(costOf(unit, { prompt_tokens: 1, prompt_tokens_details: details })).toBeNull();
    });
  });

  describe('providerCostOf', () => {
    it.each([
      [{ cost: 0.0042 }, 0.0042],
      [{ cost: 0 }, 0],
      [Object.assign(Object.create(null), { cost: 1 }), 1],
      [{ cost: -1 }, null],
      [{ cost: '0.1' }, null],
      [{ cost: Number.NaN }, null],
      [{ cost: Number.POSITIVE_INFINITY }, null],
      [{}, null],
      [null, null],
      ['cost', null],
    ])('reads usage.cost of %j as %j', (usage, cost) => {
      expect(providerCostOf(usage)).toBe(cost);
    });

    it('never throws on a usage that cannot be read', () => {
      const usage = new Proxy(
        {},
        {
          get() {
            throw new Error('hostile');
          },
        },
      );
      expect(providerCostOf(usage)).toBeNull();
    });
  });

  describe('costOf with a tariff history and { at }', () => {
    const usage = { completion_tokens: 1_000_000 };

    it('prices at the band in force at that time', () => {
      expect(costOf(BERLIN, usage, { at: '2026-03-06T23:00:00+01:00' })).toBe(NIGHT.outputPerM);
      expect(costOf(BERLIN, usage, { at: '2026-03-07T12:00:00+01:00' })).toBe(STANDARD.outputPerM);
    });

    it('is null when no tariff was in force then', () => {
      expect(costOf(BERLIN, usage, { at: '2025-01-01T00:00:00Z' })).toBeNull();
    });

    it('leaves flat prices unchanged by at', () => {
      expect(costOf(unit, usage, { at: 0 })).toBe(costOf(unit, usage));
    });

    it('names a bad history or time', () => {
      expect(() => costOf({ tariffs: [] }, usage)).toThrow('prices.tariffs must be a non-empty array');
      expect(() => costOf(BERLIN, usage, { at: 'never' })).toThrow('at must be');
    });
  });

  describe('priceOf with { at }', () => {
    it('returns the flat table entry at any time', () => {
      expect(priceOf('primary-flash', { at: '2020-01-01T00:00:00Z' })).toBe(priceOf('primary-flash'));
    });
  });
});
