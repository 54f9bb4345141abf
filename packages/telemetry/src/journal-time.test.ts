import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isJournalTime, journalTimeOf, timeMs } from './journal-time.js';

const takes = (value: unknown) => typeof journalTimeOf(value) === 'number';

const iso = fc
  .integer({ min: Date.UTC(1990, 0, 1), max: Date.UTC(2110, 0, 1) })
  .map((at) => new Date(at).toISOString());
// Digits in every place, months, days and hours often out of range; centuries around the bounds.
const shaped = fc
  .tuple(
    fc.constantFrom('19', '20', '21'),
    fc.array(fc.constantFrom(...'0123456789'), { minLength: 15, maxLength: 15 }),
  )
  .map(
    ([century, d]) =>
      `${century}${d[0]}${d[1]}-${d[2]}${d[3]}-${d[4]}${d[5]}T${d[6]}${d[7]}:${d[8]}${d[9]}:${d[10]}${d[11]}.${d[12]}${d[13]}${d[14]}Z`,
  );

describe('isJournalTime', () => {
  it.each([
    ['2026-11-23T08:00:10.500Z', true],
    ['2000-01-01T00:00:00.000Z', true],
    ['2099-12-31T23:59:59.999Z', true],
    ['2024-02-29T12:00:00.000Z', true],
    ['2000-02-29T12:00:00.000Z', true],
    ['2026-02-29T12:00:00.000Z', false],
    ['2026-04-31T12:00:00.000Z', false],
    ['2026-13-01T12:00:00.000Z', false],
    ['2026-00-01T12:00:00.000Z', false],
    ['2026-11-23T24:00:00.000Z', false],
    ['1999-12-31T23:59:59.999Z', false],
    ['2100-01-01T00:00:00.000Z', false],
    ['2026-11-23T09:00:00+02:00', true],
    ['2026-11-23T09:00:00', false],
  ])('%s: %s, as the reader says', (text, taken) => {
    expect(isJournalTime(text)).toBe(taken);
    expect(takes(text)).toBe(taken);
  });

  it('agrees with the reader on any time toISOString gives and on any string of that shape', () => {
    fc.assert(
      fc.property(fc.oneof(iso, shaped, fc.string({ minLength: 24, maxLength: 24 })), (text) => {
        expect(isJournalTime(text)).toBe(takes(text));
      }),
      { numRuns: 2_000 },
    );
  });
});

describe('timeMs', () => {
  it('reads every time as Date.parse does (NaN alike), the canonical ones digit by digit', () => {
    const other = fc.oneof(
      fc.string(),
      fc.constantFrom('2026-11-23T08:00:10Z', '2026-11-23T08:00:10.5+02:00', '2026-02-30T00:00:00.000Z'),
    );
    fc.assert(
      fc.property(fc.oneof(iso, shaped, other), (text) => {
        expect(timeMs(text)).toBe(Date.parse(text));
      }),
      { numRuns: 2_000, seed: 43 },
    );
    expect(timeMs(undefined)).toBeNaN();
  });
});
