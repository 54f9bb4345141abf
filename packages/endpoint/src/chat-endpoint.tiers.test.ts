import { nanoUsdOf } from '@switchboard/prices';
import { describe, expect, it } from 'vitest';
import { ChatEndpoint } from './chat-endpoint.js';

const tiers = [{ aboveInputTokens: 100, cacheHitPerM: 0.2, inputPerM: 2, outputPerM: 8 }];
const base = { cacheHitPerM: 0.1, inputPerM: 1, outputPerM: 4 };

function endpoint(prices: unknown): ChatEndpoint {
  return new ChatEndpoint({
    provider: 'custom',
    baseUrl: 'http://x',
    thinking: false,
    prices: prices as never,
  });
}

describe('a hand-built ChatEndpoint with tiered prices', () => {
  it('keeps its tiers, frozen, and prices a call past a threshold at the tier', () => {
    const made = endpoint({ ...base, tiers });
    expect(made.prices).toEqual({ ...base, tiers });
    expect(Object.isFrozen(made.prices?.tiers)).toBe(true);
    expect(Object.isFrozen(made.prices?.tiers?.[0])).toBe(true);
    expect(nanoUsdOf(made.cost({ prompt_cache_miss_tokens: 100 }) ?? -1)).toBe(100_000);
    expect(nanoUsdOf(made.cost({ prompt_cache_miss_tokens: 101 }) ?? -1)).toBe(202_000);
  });

  it('refuses tiers out of order or with a bad price', () => {
    expect(() => endpoint({ ...base, tiers: [tiers[0], tiers[0]] })).toThrow(
      'ChatEndpoint: prices.tiers[].aboveInputTokens must be whole numbers of tokens >= 0, in ascending order',
    );
    expect(() => endpoint({ ...base, tiers: [{ ...tiers[0], outputPerM: -1 }] })).toThrow(
      'ChatEndpoint: prices.tiers[].outputPerM must be a finite number >= 0',
    );
    expect(() => endpoint({ ...base, tiers: 'long' })).toThrow(
      'ChatEndpoint: prices.tiers must be an array of tiers',
    );
  });
});
