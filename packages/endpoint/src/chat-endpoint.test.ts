import { inspect } from 'node:util';
import { type Prices, priceOf } from '@switchboard/prices';
import { describe, expect, it } from 'vitest';
import { ChatEndpoint } from './chat-endpoint.js';

const flash = priceOf('primary-flash') as Prices;

describe('ChatEndpoint', () => {
  describe('a record', () => {
    it('keeps the fields it was given', () => {
      const endpoint = new ChatEndpoint({
        provider: 'primary',
        baseUrl: 'https://api.primary.example',
        thinking: true,
        prices: flash,
      });
      expect(endpoint).toMatchObject({
        provider: 'primary',
        baseUrl: 'https://api.primary.example',
        thinking: true,
        prices: flash,
      });
    });

    it('has no prices by default', () => {
      expect(
        new ChatEndpoint({ provider: 'custom', baseUrl: 'http://x.test', thinking: false }).prices,
      ).toBeNull();
    });

    it('is frozen', () => {
      const endpoint = new ChatEndpoint({ provider: 'scripted', baseUrl: '', thinking: false });
      expect(Object.isFrozen(endpoint)).toBe(true);
      expect(() => {
        (endpoint as { baseUrl: string }).baseUrl = 'http://elsewhere.test';
      }).toThrow(TypeError);
      expect(endpoint.baseUrl).toBe('');
    });

    it('freezes a copy of prices that were not frozen', () => {
      const prices = { cacheHitPerM: 1, inputPerM: 2, outputPerM: 3 };
      const endpoint = new ChatEndpoint({
        provider: 'custom',
        baseUrl: 'http://x.test',
        thinking: false,
        prices,
      });
      prices.inputPerM = 100;
      expect(Object.isFrozen(endpoint.prices)).toBe(true);
      expect(endpoint.prices).toEqual({ cacheHitPerM: 1, inputPerM: 2, outputPerM: 3 });
    });

    it('serialises to its four fields only', () => {
      const endpoint = new ChatEndpoint({
        provider: 'gateway',
        baseUrl: 'https://gateway.example/api/v1',
        thinking: false,
      });
      expect(JSON.parse(JSON.stringify(endpoint))).toEqual({
        provider: 'gateway',
        baseUrl: 'https://gateway.example/api/v1',
        thinking: false,
        prices: null,
      });
      expect(inspect(endpoint)).toContain("provider: 'gateway'");
    });
  });

  describe('bad input', () => {
    it('rejects a provider that is not a provider kind, listing the kinds', () => {
      expect(
        () => new ChatEndpoint({ provider: 'vendor' as never, baseUrl: 'http://x.test', thinking: false }),
      ).toThrow('ChatEndpoint: provider must be one of primary, gateway, custom, scripted, got "vendor"');
    });

    it('rejects a baseUrl that is not a string', () => {
      expect(() => new ChatEndpoint({ provider: 'custom', baseUrl: 3 as never, thinking: false })).toThrow(
        /baseUrl must be a string/,
      );
    });

    it('rejects a thinking flag that is not a boolean', () => {
      expect(() => new ChatEndpoint({ provider: 'custom', baseUrl: '', thinking: 'yes' as never })).toThrow(
        /thinking must be a boolean/,
      );
    });

    it('rejects prices with a field that is not a finite number', () => {
      const prices = { cacheHitPerM: 1, inputPerM: Number.NaN, outputPerM: 3 };
      expect(() => new ChatEndpoint({ provider: 'custom', baseUrl: '', thinking: false, prices })).toThrow(
        /prices\.inputPerM must be a finite number/,
      );
    });

    it('rejects a missing init object', () => {
      expect(() => new ChatEndpoint(undefined as never)).toThrow(TypeError);
    });
  });

  describe('cost', () => {
    const endpoint = new ChatEndpoint({
      provider: 'primary',
      baseUrl: 'https://api.primary.example',
      thinking: false,
      prices: flash,
    });

    it('costs 1M hit + 1M miss + 1M output on primary-flash at 1.774 USD', () => {
      const usage = {
        prompt_cache_hit_tokens: 1_000_000,
        prompt_cache_miss_tokens: 1_000_000,
        completion_tokens: 1_000_000,
      };
      expect(endpoint.cost(usage)).toBeCloseTo(1.774, 12);
    });

    it('costs prompt_tokens-only usage as all cache misses', () => {
      expect(endpoint.cost({ prompt_tokens: 1_000_000 })).toBeCloseTo(0.44, 12);
    });

    it('costs only the prompt tokens that were not cache hits when the miss count is absent', () => {
      const usage = { prompt_tokens: 3_000_000, prompt_cache_hit_tokens: 1_000_000 };
      expect(endpoint.cost(usage)).toBeCloseTo(0.014 + 2 * 0.44, 12);
    });

    it('is null for an unpriced model', () => {
      const unpriced = new ChatEndpoint({
        provider: 'custom',
        baseUrl: 'http://x.test',
        thinking: false,
        prices: priceOf('some-other-model'),
      });
      expect(unpriced.cost({ prompt_tokens: 10, completion_tokens: 10 })).toBeNull();
    });

    it('is null for a usage that is not a plain object', () => {
      expect(endpoint.cost(null)).toBeNull();
      expect(endpoint.cost([1, 2])).toBeNull();
      expect(endpoint.cost('100 tokens')).toBeNull();
    });
  });
});
