import { describe, expect, it } from 'vitest';
import { GATEWAY_DETECTOR_CALL, PRIMARY_JUDGE_CALL } from './__fixtures__/call-records.js';
import { usageTokens } from './usage-tokens.js';

describe('usageTokens', () => {
  it("reads the primary's cache fields", () => {
    expect(usageTokens(PRIMARY_JUDGE_CALL.usage)).toEqual({
      input: 1200,
      cacheRead: 1024,
      output: 300,
      reasoning: 120,
      known: true,
    });
  });

  it('reads OpenAI-shaped cached_tokens when the primary fields are absent', () => {
    expect(usageTokens(GATEWAY_DETECTOR_CALL.usage)).toMatchObject({
      input: 2000,
      cacheRead: 1500,
      output: 500,
    });
  });

  it('prefers prompt_cache_hit_tokens over cached_tokens', () => {
    expect(
      usageTokens({
        prompt_tokens: 10,
        prompt_cache_hit_tokens: 4,
        prompt_tokens_details: { cached_tokens: 9 },
      }).cacheRead,
    ).toBe(4);
  });

  it('sums hit and miss when prompt_tokens is missing', () => {
    expect(usageTokens({ prompt_cache_hit_tokens: 30, prompt_cache_miss_tokens: 12 }).input).toBe(42);
  });

  it('reads broken or missing counts as 0 and says when nothing was known', () => {
    expect(usageTokens({ prompt_tokens: 'many', completion_tokens: -3 })).toEqual({
      input: 0,
      cacheRead: 0,
      output: 0,
      reasoning: 0,
      known: false,
    });
    expect(usageTokens(null).known).toBe(false);
  });
});
