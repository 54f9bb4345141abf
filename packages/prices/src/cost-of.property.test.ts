import { anyPrices, anythingAtAll } from '@switchboard/test-support';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { costOf } from './cost-of.js';
import { PRICE_TABLE } from './price-table.js';
import type { Prices } from './prices.js';

const RUNS = { numRuns: 2_000 };

const tablePrices: fc.Arbitrary<Prices> = fc.constantFrom(...PRICE_TABLE.values());

const prices: fc.Arbitrary<Prices> = fc.oneof(tablePrices, anyPrices);

// Every kind of value a token field may hold, biased towards numbers: NaN,
// ±Infinity, -0, huge and tiny doubles, fractions, negatives, safe integers.
const tokenValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: fc.double() },
  { weight: 3, arbitrary: fc.integer() },
  { weight: 2, arbitrary: fc.maxSafeInteger() },
  { weight: 1, arbitrary: fc.constantFrom(Number.MAX_VALUE, -Number.MAX_VALUE, Number.MIN_VALUE, 2 ** 53) },
  { weight: 1, arbitrary: fc.string() },
  { weight: 1, arbitrary: fc.boolean() },
  { weight: 1, arbitrary: fc.constantFrom(null, undefined) },
  { weight: 1, arbitrary: fc.bigInt() },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }) },
);

/** A usage mapping with any subset of the four token fields, each holding any value, plus other keys. */
const usageLike: fc.Arbitrary<Record<string, unknown>> = fc
  .tuple(
    fc.record(
      {
        prompt_cache_hit_tokens: tokenValue,
        prompt_cache_miss_tokens: tokenValue,
        prompt_tokens: tokenValue,
        completion_tokens: tokenValue,
      },
      { requiredKeys: [] },
    ),
    fc.dictionary(fc.string(), fc.jsonValue({ maxDepth: 1 }), { maxKeys: 3 }),
  )
  .map(([tokens, others]) => ({ ...others, ...tokens }));

/** Hand-made objects that throw when looked at: a proxy whose every trap throws, a revoked proxy, throwing getters. */
function hostileValues(): unknown[] {
  const fail = () => {
    throw new Error('hostile');
  };
  const throwingProxy = new Proxy({}, { get: fail, getPrototypeOf: fail, has: fail, ownKeys: fail });
  const revoked = Proxy.revocable({}, {});
  revoked.revoke();
  const throwingGetters = Object.defineProperties(
    {},
    Object.fromEntries(
      ['prompt_cache_hit_tokens', 'prompt_cache_miss_tokens', 'prompt_tokens', 'completion_tokens'].map(
        (key) => [key, { get: fail, enumerable: true }],
      ),
    ),
  );
  return [throwingProxy, revoked.proxy, throwingGetters];
}

/** A pair of finite numbers, smaller first. */
const orderedPair = fc
  .tuple(
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
  )
  .map(([a, b]): [number, number] => (a <= b ? [a, b] : [b, a]));

function expectSaneCost(cost: number | null): void {
  if (cost === null) return;
  expect(typeof cost).toBe('number');
  expect(Number.isFinite(cost)).toBe(true);
  expect(cost).toBeGreaterThanOrEqual(0);
}

function withField(usage: Record<string, unknown>, field: string, value: unknown): Record<string, unknown> {
  return { ...usage, [field]: value };
}

describe('costOf (property-based)', () => {
  describe('for any value as usage', () => {
    it('never throws and returns null or a finite, non-negative number for any JSON value', () => {
      fc.assert(
        fc.property(prices, fc.jsonValue(), (somePrices, usage) => {
          expectSaneCost(costOf(somePrices, usage));
        }),
        RUNS,
      );
    });

    it('never throws and returns null or a finite, non-negative number for anything at all', () => {
      fc.assert(
        fc.property(prices, anythingAtAll, (somePrices, usage) => {
          expectSaneCost(costOf(somePrices, usage));
        }),
        RUNS,
      );
    });

    it('returns a finite, non-negative number for every usage mapping, whatever its fields hold', () => {
      fc.assert(
        fc.property(prices, usageLike, (somePrices, usage) => {
          const cost = costOf(somePrices, usage);
          expect(cost).not.toBeNull();
          expectSaneCost(cost);
        }),
        RUNS,
      );
    });

    // fast-check itself cannot hold these (it looks into every value it generates), so they are listed.
    it.each(
      hostileValues().map((value, index) => [
        ['a proxy whose traps throw', 'a revoked proxy', 'throwing getters'][index],
        value,
      ]),
    )('never throws for a hand-made usage that throws when read (%s): null', (_, usage) => {
      for (const somePrices of PRICE_TABLE.values()) expect(costOf(somePrices, usage)).toBeNull();
    });

    it('returns null without prices, whatever the usage', () => {
      fc.assert(
        fc.property(fc.oneof(usageLike, anythingAtAll), (usage) => {
          expect(costOf(null, usage)).toBeNull();
        }),
        RUNS,
      );
    });
  });

  describe('monotonicity (over finite token values)', () => {
    // Usage without a miss count: deleted, null or undefined.
    const withoutMiss = fc
      .tuple(usageLike, fc.constantFrom('delete', null, undefined))
      .map(([usage, miss]) => {
        const copy: Record<string, unknown> = { ...usage };
        if (miss === 'delete') delete copy.prompt_cache_miss_tokens;
        else copy.prompt_cache_miss_tokens = miss;
        return copy;
      });
    // Usage with a miss count of any non-null value.
    const withMiss = fc
      .tuple(
        usageLike,
        tokenValue.filter((value) => value !== null && value !== undefined),
      )
      .map(([usage, miss]) => ({ ...usage, prompt_cache_miss_tokens: miss }));

    // Each row: the field that rises, when, the usages it is drawn over, and whether each cost must be a number.
    it.each([
      ['completion_tokens', '', usageLike, true],
      ['prompt_cache_miss_tokens', '', usageLike, false],
      ['prompt_tokens', ' while prompt_cache_miss_tokens is absent', withoutMiss, false],
      [
        'prompt_cache_hit_tokens',
        ' while prompt_cache_miss_tokens is present (any non-null value)',
        withMiss,
        false,
      ],
    ] as const)('never falls when %s rises%s', (field, _when, usages, priced) => {
      fc.assert(
        fc.property(prices, usages, orderedPair, (somePrices, usage, [low, high]) => {
          const lower = costOf(somePrices, withField(usage, field, low));
          const higher = costOf(somePrices, withField(usage, field, high));
          if (priced) expect(lower).not.toBeNull();
          expect(higher as number).toBeGreaterThanOrEqual(lower as number);
        }),
        RUNS,
      );
    });

    it('falls when prompt_cache_hit_tokens rises while prompt_cache_miss_tokens is absent (the documented exception)', () => {
      // Spec 8: without a miss count, input = max(prompt_tokens - cache_hit, 0), so each
      // hit token moves from the input price to the cheaper cache-hit price.
      const counts = fc
        .tuple(fc.nat(1e9), fc.nat(1e9), fc.nat(1e9))
        .filter(([a, b]) => a !== b)
        .map(([a, b, c]) => {
          const [low, high] = a < b ? [a, b] : [b, a];
          return { low, high, promptTokens: high + c };
        });
      fc.assert(
        fc.property(tablePrices, counts, fc.nat(1e9), (somePrices, { low, high, promptTokens }, output) => {
          const usage = { prompt_tokens: promptTokens, completion_tokens: output };
          const lower = costOf(somePrices, { ...usage, prompt_cache_hit_tokens: low });
          const higher = costOf(somePrices, { ...usage, prompt_cache_hit_tokens: high });
          expect(higher as number).toBeLessThan(lower as number);
        }),
        RUNS,
      );
    });
  });
});
