import fc from 'fast-check';

/**
 * Any JavaScript value at all, the odd ones included (bigints, boxed values,
 * dates, maps, sets, null-prototype objects, sparse and typed arrays): what a
 * function that must never throw on input is fed.
 */
export const anythingAtAll: fc.Arbitrary<unknown> = fc.anything({
  withBigInt: true,
  withBoxedValues: true,
  withDate: true,
  withMap: true,
  withNullPrototype: true,
  withObjectString: true,
  withSet: true,
  withSparseArray: true,
  withTypedArray: true,
});
