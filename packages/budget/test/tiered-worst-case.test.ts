import { nanoUsdOf, PriceBook, type Prices } from '@switchboard/prices';
import { describe, expect, it } from 'vitest';
import { promptTokenBound } from '../src/prompt-token-bound.js';
import { worstCaseCostUsd } from '../src/worst-case-cost.js';

// A made-up long-context cliff: past 1,000 billed input tokens the whole call is billed at double.
const TIERED: Prices = {
  cacheHitPerM: 0.1,
  inputPerM: 1,
  outputPerM: 4,
  tiers: [{ aboveInputTokens: 1_000, cacheHitPerM: 0.2, inputPerM: 2, outputPerM: 8 }],
};
const book = new PriceBook({ tiered: TIERED });
const pricing = {
  maxPricesOf: (model: string) => book.maxPricesOf(model),
  maxOutputTokensOf: () => null,
  maxCostUsdOf: () => null,
};

function attempt(text: string) {
  const messages = [{ role: 'user', content: text }];
  return {
    model: 'tiered',
    attempt: 1,
    role: null,
    messages,
    tools: undefined,
    maxTokens: 100,
    signal: undefined,
  };
}

describe('a budget’s worst case with prompt-size tiers', () => {
  it('prices a prompt whose bound stays under the threshold at the base prices', () => {
    const info = attempt('short');
    const bound = promptTokenBound(info.messages, undefined);
    expect(bound).toBeLessThanOrEqual(1_000);
    // bound × max(input, cache hit) + 100 output tokens × 4, per million.
    expect(nanoUsdOf(worstCaseCostUsd(info, pricing, 's'))).toBe(bound * 1_000 + 400_000);
  });

  it('prices a prompt whose bound passes the threshold at the tier, output included', () => {
    const info = attempt('x'.repeat(2_000));
    const bound = promptTokenBound(info.messages, undefined);
    expect(bound).toBeGreaterThan(1_000);
    expect(nanoUsdOf(worstCaseCostUsd(info, pricing, 's'))).toBe(bound * 2_000 + 800_000);
  });
});
