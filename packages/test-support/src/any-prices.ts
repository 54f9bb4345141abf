import fc from 'fast-check';

/** The shape of `Prices` from `@switchboard/prices`, written out so this package stays below it. */
export interface PricesShape {
  readonly cacheHitPerM: number;
  readonly inputPerM: number;
  readonly outputPerM: number;
}

/**
 * A valid price in USD per million tokens: finite, non-negative, up to a
 * million (far above any real price), so that the cost arithmetic is what is tested.
 */
export const pricePerMillion: fc.Arbitrary<number> = fc.double({ min: 0, max: 1e6, noNaN: true });

/** Any valid prices, frozen like the price table's entries. */
export const anyPrices: fc.Arbitrary<PricesShape> = fc
  .record({ cacheHitPerM: pricePerMillion, inputPerM: pricePerMillion, outputPerM: pricePerMillion })
  .map((prices) => Object.freeze(prices));
