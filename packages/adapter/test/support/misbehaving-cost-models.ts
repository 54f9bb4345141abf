/**
 * Cost models that misbehave, one a row: what it does, its `cost`, and what the
 * record's `costError` must say about it. Each must leave the call resolved,
 * counted at 0 and flagged, with one `SWITCHBOARD_COST_MODEL` warning.
 */
export const MISBEHAVING_COSTS: readonly [string, () => unknown, RegExp][] = [
  [
    'throws',
    () => {
      throw new Error('price table missing');
    },
    /threw Error/,
  ],
  ['returns a negative number', () => -0.5, /returned -0\.5/],
  ['returns NaN', () => Number.NaN, /returned NaN/],
  ['returns Infinity', () => Number.POSITIVE_INFINITY, /returned Infinity/],
  ['returns a string', () => '3', /returned a string/],
];
