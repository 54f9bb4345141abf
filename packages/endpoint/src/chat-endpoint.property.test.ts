import { PRICE_TABLE, type Prices } from '@switchboard/prices';
import { anyPrices, nearUsage, pricePerMillion } from '@switchboard/test-support';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ChatEndpoint } from './chat-endpoint.js';

const RUNS = { numRuns: 1_000 };

const tablePrices: fc.Arbitrary<Prices> = fc.constantFrom(...PRICE_TABLE.values());
const validPrices = fc.oneof(tablePrices, anyPrices);

const usage = nearUsage(fc.jsonValue());

function endpointWith(prices: Prices | null): ChatEndpoint {
  return new ChatEndpoint({
    provider: 'primary',
    baseUrl: 'https://api.primary.example',
    thinking: false,
    prices,
  });
}

describe('ChatEndpoint (property-based)', () => {
  describe('cost', () => {
    it('is null or a finite, non-negative number for valid prices and any usage', () => {
      fc.assert(
        fc.property(validPrices, usage, (prices, entry) => {
          const cost = endpointWith(prices).cost(entry);
          if (cost === null) return;
          expect(Number.isFinite(cost)).toBe(true);
          expect(cost).toBeGreaterThanOrEqual(0);
        }),
        RUNS,
      );
    });

    it('is null for any usage without prices', () => {
      fc.assert(
        fc.property(usage, (entry) => {
          expect(endpointWith(null).cost(entry)).toBeNull();
        }),
        RUNS,
      );
    });
  });

  describe('prices the constructor accepts', () => {
    it('refuses any negative, NaN or infinite price with a TypeError naming the field, so no cost is ever negative', () => {
      const anyPrice = fc.oneof(fc.double(), pricePerMillion);
      fc.assert(
        fc.property(
          fc.record({ cacheHitPerM: anyPrice, inputPerM: anyPrice, outputPerM: anyPrice }),
          (prices) => {
            const bad = (['cacheHitPerM', 'inputPerM', 'outputPerM'] as const).find(
              (field) => !(Number.isFinite(prices[field]) && prices[field] >= 0),
            );
            if (bad === undefined) {
              expect(endpointWith(prices).prices).toEqual(prices);
            } else {
              expect(() => endpointWith(prices)).toThrow(TypeError);
              expect(() => endpointWith(prices)).toThrow(`prices.${bad}`);
            }
          },
        ),
        RUNS,
      );
    });
  });
});
