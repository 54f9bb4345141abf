import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { costOf } from './cost-of.js';
import { formatNanoUsd, NANO_USD_PER_USD, nanoUsdOf, usdOfNano } from './nano-usd.js';
import { PRICE_TABLE } from './price-table.js';

describe('nanoUsdOf', () => {
  it('rounds float noise away to the nearest nano-dollar', () => {
    expect(nanoUsdOf(0.000047079999999999996)).toBe(47080);
    expect(nanoUsdOf(0.00029201600000000003)).toBe(292016);
    expect(nanoUsdOf(0)).toBe(0);
    expect(Object.is(nanoUsdOf(-0), 0)).toBe(true);
    expect(nanoUsdOf(1.774)).toBe(1_774_000_000);
    expect(nanoUsdOf(0.0000000005)).toBe(1);
    expect(nanoUsdOf(-0.0000000005)).toBe(-1);
  });

  it('refuses what is not a finite amount, or past the exact range', () => {
    expect(() => nanoUsdOf(Number.NaN)).toThrow(RangeError);
    expect(() => nanoUsdOf(Number.POSITIVE_INFINITY)).toThrow(/finite number/);
    expect(() => nanoUsdOf(1e8)).toThrow(/exact range/);
    expect(() => nanoUsdOf('1' as unknown as number)).toThrow(RangeError);
  });

  it('gives every table cost as a whole number of nano-dollars, exactly', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...PRICE_TABLE.values()),
        fc.nat(2_000_000),
        fc.nat(2_000_000),
        fc.nat(200_000),
        (prices, hit, miss, out) => {
          const usage = {
            prompt_cache_hit_tokens: hit,
            prompt_cache_miss_tokens: miss,
            completion_tokens: out,
          };
          const nano = nanoUsdOf(costOf(prices, usage) as number);
          // The same cost on integers: with at most three decimals per million tokens,
          // a price is a whole number of nano-dollars per token (perM * 1000).
          const exact =
            hit * Math.round(prices.cacheHitPerM * 1000) +
            miss * Math.round(prices.inputPerM * 1000) +
            out * Math.round(prices.outputPerM * 1000);
          expect(nano).toBe(exact);
        },
      ),
    );
  });
});

describe('usdOfNano', () => {
  it('prints without float noise', () => {
    expect(String(usdOfNano(292016))).toBe('0.000292016');
    expect(usdOfNano(NANO_USD_PER_USD)).toBe(1);
    expect(() => usdOfNano(1.5)).toThrow(/safe integer/);
  });
});

describe('formatNanoUsd', () => {
  it('writes the exact decimal, at most nine places', () => {
    expect(formatNanoUsd(292016)).toBe('0.000292016');
    expect(formatNanoUsd(0)).toBe('0');
    expect(formatNanoUsd(1_500_000_000)).toBe('1.5');
    expect(formatNanoUsd(1_500_000_000, { minDecimals: 2 })).toBe('1.50');
    expect(formatNanoUsd(47080, { minDecimals: 9 })).toBe('0.000047080');
    expect(formatNanoUsd(-47080)).toBe('-0.00004708');
    expect(formatNanoUsd(Number.MAX_SAFE_INTEGER)).toBe('9007199.254740991');
  });

  it('refuses a bad amount or option', () => {
    expect(() => formatNanoUsd(0.5)).toThrow(RangeError);
    expect(() => formatNanoUsd(1, { minDecimals: 10 })).toThrow(/minDecimals/);
  });

  it('agrees with the decimal of every safe amount, and parts add up to the formatted sum', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 10 ** 12 }), { maxLength: 50 }), (parts) => {
        const sum = parts.reduce((total, part) => total + part, 0);
        const toBig = (text: string): bigint => {
          const [whole, decimals = ''] = text.split('.');
          return BigInt(whole as string) * 10n ** 9n + BigInt(decimals.padEnd(9, '0'));
        };
        expect(toBig(formatNanoUsd(sum))).toBe(parts.reduce((total, part) => total + BigInt(part), 0n));
        // Below about 8 million USD the float is the nearest to that decimal, and prints as it
        // (from 1e-6 up, where String() stops using an exponent).
        expect(usdOfNano(sum)).toBe(Number(formatNanoUsd(sum)));
        if (sum >= 1000) expect(String(usdOfNano(sum))).toBe(formatNanoUsd(sum));
      }),
    );
  });
});
