import { describe, expect, it } from 'vitest';
import { shippedCost } from '../../test/support/stream-support.js';
import { SUPPORTED_MODELS } from '../chat/models.js';
import { costNanoUsdOf } from './emulator-bill.js';

const usages = [
  { prompt_tokens: 0, completion_tokens: 0, prompt_cache_hit_tokens: 0, prompt_cache_miss_tokens: 0 },
  { prompt_tokens: 37, completion_tokens: 61, prompt_cache_hit_tokens: 32, prompt_cache_miss_tokens: 5 },
  { prompt_tokens: 9, completion_tokens: 1, prompt_cache_hit_tokens: 0, prompt_cache_miss_tokens: 9 },
  // Long prompts, past any prompt-size price tier the shipped table might get.
  {
    prompt_tokens: 250_000,
    completion_tokens: 12_000,
    prompt_cache_hit_tokens: 200_000,
    prompt_cache_miss_tokens: 50_000,
  },
  {
    prompt_tokens: 1_000_000,
    completion_tokens: 200_000,
    prompt_cache_hit_tokens: 0,
    prompt_cache_miss_tokens: 1_000_000,
  },
];

describe('the bill prices', () => {
  it('cost what the shipped price table and its cost rule say, for every model the emulator answers', async () => {
    // The emulator keeps its own copy of the table's figures (it depends on no other package):
    // should the shipped table change (a price, a long-context tier), this fails until the copy follows.
    for (const model of SUPPORTED_MODELS) {
      for (const usage of usages) {
        expect([model, usage, costNanoUsdOf(model, usage)]).toEqual([
          model,
          usage,
          await shippedCost(model, usage),
        ]);
      }
    }
  });

  it('cost 0 for a model without a price', () => {
    expect(costNanoUsdOf('gpt-x', usages[1] as (typeof usages)[number])).toBe(0);
    expect(costNanoUsdOf('constructor', usages[1] as (typeof usages)[number])).toBe(0);
  });
});
