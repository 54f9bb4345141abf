import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PRICE_TABLE, priceOf } from './price-table.js';

const RUNS = { numRuns: 2_000 };

const tableEntries = [...PRICE_TABLE.values()];
const tableIds = [...PRICE_TABLE.keys()];

// Strings of every kind: ASCII, full Unicode, lone surrogates (binary), graphemes.
const anyString = fc.oneof(
  fc.string(),
  fc.string({ unit: 'binary' }),
  fc.string({ unit: 'grapheme' }),
  fc.string({ unit: 'grapheme-ascii' }),
);

// What String.prototype.trim removes, and a few characters it keeps (zero-width space, ...).
const whitespace = fc.string({
  unit: fc.constantFrom(' ', '\t', '\n', '\r', '\v', '\f', '\u00a0', '\u2028', '\ufeff', '\u3000'),
  maxLength: 4,
});

const prototypeKeys = fc.constantFrom(
  ...Object.getOwnPropertyNames(Object.prototype),
  ...Object.getOwnPropertyNames(Map.prototype),
  '__proto__',
  'prototype',
);

/** Table ids, changed a little: surrounding whitespace, case, a character more or less. */
const nearTableIds = fc.oneof(
  fc
    .tuple(whitespace, fc.constantFrom(...tableIds), whitespace)
    .map(([before, id, after]) => before + id + after),
  fc.constantFrom(...tableIds).map((id) => id.toUpperCase()),
  fc.tuple(fc.constantFrom(...tableIds), anyString).map(([id, extra]) => id + extra),
  fc.constantFrom(...tableIds).map((id) => id.slice(0, -1)),
  fc.constantFrom(...tableIds).map((id) => `${id}\u200b`),
);

describe('priceOf (property-based)', () => {
  describe('for any string', () => {
    it('never throws and returns null or one of the table entries, the very object', () => {
      fc.assert(
        fc.property(fc.oneof(anyString, nearTableIds, prototypeKeys), (model) => {
          const prices = priceOf(model);
          if (prices !== null) expect(tableEntries).toContain(prices);
        }),
        RUNS,
      );
    });

    it('returns an entry exactly when the trimmed string is a table id, and then that id’s entry', () => {
      fc.assert(
        fc.property(fc.oneof(anyString, nearTableIds, prototypeKeys), (model) => {
          const id = model.trim();
          expect(priceOf(model)).toBe(PRICE_TABLE.has(id) ? PRICE_TABLE.get(id) : null);
        }),
        RUNS,
      );
    });

    it('finds every table id whatever whitespace surrounds it', () => {
      fc.assert(
        fc.property(fc.constantFrom(...tableIds), whitespace, whitespace, (id, before, after) => {
          expect(priceOf(before + id + after)).toBe(PRICE_TABLE.get(id));
        }),
        RUNS,
      );
    });

    it('returns frozen entries', () => {
      fc.assert(
        fc.property(fc.constantFrom(...tableIds), (id) => {
          expect(Object.isFrozen(priceOf(id))).toBe(true);
        }),
      );
    });
  });

  describe('for values that are not strings (callers without types)', () => {
    it('never throws and returns null', () => {
      const notString = fc
        .anything({ withBigInt: true, withBoxedValues: true, withMap: true, withNullPrototype: true })
        .filter((value) => typeof value !== 'string');
      fc.assert(
        fc.property(notString, (value) => {
          expect(priceOf(value as string)).toBeNull();
        }),
        RUNS,
      );
    });
  });
});
