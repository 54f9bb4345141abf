import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { PRICE_TABLE, PRICE_TABLE_SOURCE, priceOf, provenanceOf } from './price-table.js';
import table from './price-table.json' with { type: 'json' };

const price = z.number().finite().nonnegative();
const priceTableSchema = z.strictObject({
  currency: z.literal('USD'),
  unit: z.literal('per million tokens'),
  recorded: z.iso.date(),
  source: z.string().min(1),
  models: z.record(
    z.string().regex(/^\S+$/),
    z.strictObject({
      cache_hit_per_m: price,
      input_per_m: price,
      output_per_m: price,
      tiers: z
        .array(
          z.strictObject({
            above_input_tokens: z.number().int().nonnegative(),
            cache_hit_per_m: price,
            input_per_m: price,
            output_per_m: price,
          }),
        )
        .optional(),
      source: z.string().min(1),
      checked_at: z.iso.date(),
    }),
  ),
});

describe('price-table.json', () => {
  it('matches the schema: currency, unit, recorded date, source and one row per model', () => {
    const parsed = priceTableSchema.safeParse(table);
    expect(parsed.error?.issues ?? []).toEqual([]);
  });

  it('holds the five ids of spec 2.1 with their prices', () => {
    const prices = Object.fromEntries(
      Object.entries(table.models).map(([model, { source: _s, checked_at: _c, ...row }]) => [model, row]),
    );
    expect(prices).toEqual({
      'primary-flash': { cache_hit_per_m: 0.014, input_per_m: 0.44, output_per_m: 1.32 },
      'primary-v4.1-flash': { cache_hit_per_m: 0.014, input_per_m: 0.44, output_per_m: 1.32 },
      'primary-v4-flash': { cache_hit_per_m: 0.014, input_per_m: 0.44, output_per_m: 1.32 },
      'primary-v4-flash-vision-exp': { cache_hit_per_m: 0.014, input_per_m: 0.44, output_per_m: 1.32 },
      'primary-v4-pro': { cache_hit_per_m: 0.044, input_per_m: 1.32, output_per_m: 3.96 },
    });
  });

  it('says on every entry where its prices were read and when they were last checked', () => {
    for (const row of Object.values(table.models)) {
      expect(row.source).toBe("the primary platform's published list prices");
      expect(row.checked_at).toBe(table.recorded);
    }
  });
});

describe('PRICE_TABLE', () => {
  it('has one frozen Prices entry per model in the data file', () => {
    expect([...PRICE_TABLE.keys()]).toEqual(Object.keys(table.models));
    for (const prices of PRICE_TABLE.values()) expect(Object.isFrozen(prices)).toBe(true);
  });

  it('maps the data file fields onto camelCase Prices', () => {
    expect(PRICE_TABLE.get('primary-v4-pro')).toEqual({
      cacheHitPerM: 0.044,
      inputPerM: 1.32,
      outputPerM: 3.96,
    });
  });

  it('records when and where the prices were taken', () => {
    expect(PRICE_TABLE_SOURCE.recorded).toBe(table.recorded);
    expect(PRICE_TABLE_SOURCE.source).toBe(table.source);
    expect(PRICE_TABLE_SOURCE.source).toMatch(/list prices/);
  });
});

describe('priceOf', () => {
  describe('a known id', () => {
    it('returns the table entry itself', () => {
      expect(priceOf('primary-flash')).toBe(PRICE_TABLE.get('primary-flash'));
    });

    it('ignores surrounding whitespace', () => {
      expect(priceOf('  primary-v4-pro\n')).toBe(PRICE_TABLE.get('primary-v4-pro'));
    });
  });

  describe('an unknown id', () => {
    it.each(['primary-chat', 'PRIMARY-FLASH', '', '   ', 'primary flash'])('returns null for %j', (model) => {
      expect(priceOf(model)).toBeNull();
    });

    it.each(['constructor', '__proto__', 'toString', 'hasOwnProperty'])(
      'never matches the Object.prototype key %j',
      (model) => {
        expect(priceOf(model)).toBeNull();
      },
    );

    it('returns null for a value that is not a string', () => {
      expect(priceOf(42 as unknown as string)).toBeNull();
      expect(priceOf(null as unknown as string)).toBeNull();
    });
  });
});

describe('provenanceOf', () => {
  it('gives the source and checked date of every shipped entry, trimming the id', () => {
    for (const model of PRICE_TABLE.keys()) {
      expect(provenanceOf(` ${model} `)).toEqual({
        source: "the primary platform's published list prices",
        checkedAt: '2026-11-22',
      });
      expect(Object.isFrozen(provenanceOf(model))).toBe(true);
    }
  });

  it('dates every shipped entry on a real day, no later than the table was recorded nor than today (issue 40.15)', () => {
    // The table is loaded without refusing a date ahead of the clock (a machine whose clock is behind
    // must still load it), so the dates are held here instead.
    const today = new Date().toISOString().slice(0, 10);
    for (const [model, row] of Object.entries(table.models)) {
      const checked = row.checked_at;
      expect(new Date(`${checked}T00:00:00Z`).toISOString().slice(0, 10), model).toBe(checked);
      expect(checked <= table.recorded && checked <= today, model).toBe(true);
    }
  });

  it.each(['primary-chat', 'constructor', '__proto__', 'unknown-model', ''])('is null for %j', (model) => {
    expect(provenanceOf(model)).toBeNull();
  });

  it('is null, never throws, for a model that is not a string', () => {
    expect(provenanceOf(7 as unknown as string)).toBeNull();
  });
});
