// Fixture tariffs for tests: made up, shaped like real price histories. The
// shipped table has flat prices only.
import type { Prices } from '../prices.js';
import type { TariffHistory } from '../tariff.js';

const prices = (cacheHitPerM: number, inputPerM: number, outputPerM: number): Prices =>
  Object.freeze({ cacheHitPerM, inputPerM, outputPerM });

export const STANDARD = prices(0.1, 1, 2);
export const OFF_PEAK = prices(0.05, 0.5, 1);
export const PEAK = prices(0.2, 2, 4);
export const NIGHT = prices(0.02, 0.2, 0.4);

/**
 * Like the primary platform's history, in its own timezone (no DST): flat at
 * first; then an off-peak discount every night (22:30 to 06:30, across
 * midnight); then, added to it, peak hours on weekdays (09:00-12:00 and
 * 14:00-18:00) except public holidays, from a calendar complete for
 * 2026-01-05 to 2026-12-31.
 */
export const SHANGHAI: TariffHistory = {
  tariffs: [
    { id: 'flat-2025', effectiveFrom: '2025-01-01T00:00:00+08:00', prices: STANDARD },
    {
      id: 'off-peak-2025',
      effectiveFrom: '2025-07-01T00:00:00+08:00',
      prices: STANDARD,
      schedule: {
        timeZone: 'Asia/Shanghai',
        bands: [{ name: 'off-peak', prices: OFF_PEAK, windows: [{ from: '22:30', until: '06:30' }] }],
      },
    },
    {
      id: 'peak-2026',
      effectiveFrom: '2026-01-01T00:00:00+08:00',
      prices: STANDARD,
      schedule: {
        timeZone: 'Asia/Shanghai',
        bands: [
          { name: 'off-peak', prices: OFF_PEAK, windows: [{ from: '22:30', until: '06:30' }] },
          {
            name: 'peak',
            prices: PEAK,
            weekdays: [1, 2, 3, 4, 5],
            windows: [
              { from: '09:00', until: '12:00' },
              { from: '14:00', until: '18:00' },
            ],
            exceptHolidays: true,
          },
        ],
        holidays: {
          dates: ['2026-05-01', '2026-05-04', '2026-10-01', '2026-10-02'],
          coverage: { from: '2026-01-05', until: '2026-12-31' },
        },
      },
    },
  ],
};

/**
 * A tariff in a timezone with daylight-saving changes: a night discount on
 * nights starting Monday to Friday (22:00 to 06:00, not on a holiday) and an
 * early band every day from 01:00 to 03:00 local time, the hours DST moves.
 * In force from 2026-01-01 until 2027-07-01 (then unpriced).
 */
export const BERLIN: TariffHistory = {
  tariffs: [
    {
      effectiveFrom: '2026-01-01T00:00:00+01:00',
      effectiveUntil: '2027-07-01T00:00:00+02:00',
      prices: STANDARD,
      schedule: {
        timeZone: 'Europe/Berlin',
        bands: [
          { name: 'early', prices: PEAK, windows: [{ from: '01:00', until: '03:00' }] },
          {
            name: 'night',
            prices: NIGHT,
            weekdays: [1, 2, 3, 4, 5],
            windows: [{ from: '22:00', until: '06:00' }],
            exceptHolidays: true,
          },
        ],
        holidays: {
          dates: ['2026-12-25', '2026-12-26'],
          coverage: { from: '2026-01-01', until: '2026-12-31' },
        },
      },
    },
  ],
};
