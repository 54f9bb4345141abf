import { describe, expect, it } from 'vitest';
import { PriceBook } from './price-book.js';
import { PRICE_TABLE, priceOf, provenanceOf } from './price-table.js';

// A lookup matches an id exactly, after the seed's whitespace trim: never by prefix, case or suffix.
const lookalikes = (id: string) => [
  `${id}-2`,
  id.toUpperCase(),
  `${id}:free`,
  `${id}x`,
  id.slice(0, -1),
  `vendor/${id}`,
];

describe('exact model names', () => {
  it('no shipped id prices a look-alike id, and the trimmed id itself is priced', () => {
    for (const id of PRICE_TABLE.keys()) {
      for (const other of lookalikes(id)) {
        if (PRICE_TABLE.has(other)) continue;
        expect(priceOf(other), other).toBeNull();
        expect(provenanceOf(other), other).toBeNull();
        expect(new PriceBook().priceOf(other), other).toBeNull();
      }
      expect(priceOf(`  ${id}\n`)).toBe(PRICE_TABLE.get(id));
    }
  });

  it('a look-alike with an entry of its own is priced from that entry', () => {
    const book = new PriceBook().withConfig({
      'primary-flash:free': { cache_hit_per_m: 0, input_per_m: 0, output_per_m: 0 },
    });
    expect(book.priceOf('primary-flash:free')?.prices.inputPerM).toBe(0);
    expect(book.priceOf('primary-flash')?.prices.inputPerM).toBe(0.44);
    expect(book.priceOf('PRIMARY-FLASH')).toBeNull();
    expect(book.priceOf('primary-flash-2')).toBeNull();
  });
});
