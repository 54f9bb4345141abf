import { describe, expect, it } from 'vitest';
import { priceAgeDays } from './price-age.js';

describe('priceAgeDays', () => {
  it('reads each date as it is, also when dates alternate and one is not a date', () => {
    const at = Date.parse('2026-03-01T12:00:00Z');
    const asked = ['2026-02-28', '2025-12-01', '2026-02-28', 'not a date', '2026-03-01', '2025-12-01'];
    expect(asked.map((date) => priceAgeDays(date, at))).toEqual([1, 90, 1, Number.NaN, 0, 90]);
  });
});
