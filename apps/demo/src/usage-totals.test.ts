import { costOf, priceOf } from '@switchboard/prices';
import { describe, expect, it } from 'vitest';
import { sumTotals, usageTotals } from './usage-totals.js';

const flash = priceOf('primary-flash');
const cost = (usage: unknown) => costOf(flash, usage);

describe('usageTotals', () => {
  it('adds billed tokens and per-entry costs over the entries', () => {
    const totals = usageTotals(
      [
        { prompt_cache_hit_tokens: 10, prompt_cache_miss_tokens: 5, completion_tokens: 3 },
        { prompt_tokens: 20, prompt_cache_hit_tokens: 4, completion_tokens: 7 },
      ],
      cost,
    );
    expect(totals).toMatchObject({ calls: 2, cacheHit: 14, cacheMiss: 21, output: 10 });
    expect(totals.usd).toBeCloseTo((14 * 0.014 + 21 * 0.44 + 10 * 1.32) / 1_000_000, 15);
  });

  it('counts an entry with no cost as 0 USD', () => {
    expect(usageTotals([{ completion_tokens: 5 }], () => null).usd).toBe(0);
  });
});

describe('sumTotals', () => {
  it('sums each column', () => {
    const row = { calls: 1, cacheHit: 2, cacheMiss: 3, output: 4, usd: 0.5 };
    expect(sumTotals([row, row])).toEqual({ calls: 2, cacheHit: 4, cacheMiss: 6, output: 8, usd: 1 });
  });
});
