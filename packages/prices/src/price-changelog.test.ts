import { describe, expect, it } from 'vitest';
import {
  priceChanges,
  priceChangeset,
  releasesPrices,
  unlistedChanges,
} from '../../../scripts/price-changes.mjs';
import table from './price-table.json' with { type: 'json' };

const row = (input: number, checkedAt = '2026-11-22') => ({
  cache_hit_per_m: 0.014,
  input_per_m: input,
  output_per_m: 1.32,
  source: 'the list',
  checked_at: checkedAt,
});

describe('the CHANGELOG lines of a price change', () => {
  it('list each model’s old and new prices and checked dates', () => {
    const before = { models: { a: row(0.44), b: row(1), gone: row(2), same: row(3), dated: row(4) } };
    const after = {
      models: {
        a: row(0.5, '2026-12-01'),
        b: {
          ...row(1),
          tiers: [{ above_input_tokens: 128000, cache_hit_per_m: 0.1, input_per_m: 2, output_per_m: 3 }],
        },
        same: row(3),
        dated: row(4, '2026-12-01'),
        fresh: row(5),
      },
    };
    expect(priceChanges(before, after).map((change) => [change.kind, change.line])).toEqual([
      [
        'changed',
        '- `a`: cache hit 0.014, input 0.44, output 1.32 → cache hit 0.014, input 0.5, output 1.32 USD per million tokens (checked 2026-11-22 → 2026-12-01)',
      ],
      [
        'changed',
        '- `b`: cache hit 0.014, input 1, output 1.32 → cache hit 0.014, input 1, output 1.32; above 128000 input tokens: cache hit 0.1, input 2, output 3 USD per million tokens (checked 2026-11-22 → 2026-11-22)',
      ],
      [
        'rechecked',
        '- `dated`: unchanged, cache hit 0.014, input 4, output 1.32 USD per million tokens (checked 2026-11-22 → 2026-12-01)',
      ],
      [
        'added',
        '- `fresh` added: cache hit 0.014, input 5, output 1.32 USD per million tokens (checked 2026-11-22)',
      ],
      [
        'removed',
        '- `gone` removed (was cache hit 0.014, input 2, output 1.32 USD per million tokens, checked 2026-11-22)',
      ],
    ]);
  });

  it('find nothing between a table and itself', () => {
    expect(priceChanges(table, table)).toEqual([]);
  });

  it('are listed by a changeset that releases @switchboard/prices alone, which --write produces', () => {
    const changes = priceChanges({ models: { a: row(0.44) } }, { models: { a: row(0.5) } });
    const written = priceChangeset(changes);
    expect(written.startsWith("---\n'@switchboard/prices': patch\n---\n")).toBe(true);
    expect(releasesPrices(written)).toBe(true);
    expect(unlistedChanges(changes, [written])).toEqual([]);
    // The line in a changeset of another package, or not at all, does not count.
    const other = written.replace("'@switchboard/prices'", "'@switchboard/adapter'");
    expect(releasesPrices(other)).toBe(false);
    expect(unlistedChanges(changes, [other])).toEqual(changes);
    expect(unlistedChanges(changes, ["---\n'@switchboard/prices': patch\n---\n\nNew prices.\n"])).toEqual(
      changes,
    );
  });
});
