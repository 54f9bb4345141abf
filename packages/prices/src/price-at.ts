import type { CompiledBand, CompiledEntry, CompiledTariff, Priced } from './compile-entry.js';
import { localMinuteOf } from './local-time.js';
import { maxPrices } from './price-tiers.js';
import type { Prices } from './prices.js';

// Which out-of-coverage days a match consulted (1: the local day, 2: the day
// before), and which of them the current pass assumes are holidays.
let consulted = 0;

function startsOn(
  tariff: CompiledTariff,
  band: CompiledBand,
  day: number,
  today: number,
  assume: number,
): boolean {
  // Day 0, 1970-01-01, was a Thursday (4 in the mask, which counts from Sunday as 0).
  if (!((band.days >> (((day % 7) + 11) % 7)) & 1)) return false;
  if (!band.exceptHolidays || !tariff.holidays) return true;
  if (day >= tariff.cover[0] && day <= tariff.cover[1]) return !tariff.holidays.has(day);
  const bit = day === today ? 1 : 2;
  consulted |= bit;
  return !(assume & bit);
}

function bandAt(tariff: CompiledTariff, day: number, minute: number, assume: number): Priced {
  for (const band of tariff.bands) {
    const windows = band.windows;
    for (let index = 0; index < windows.length; index += 3) {
      if (
        minute >= (windows[index] as number) &&
        minute < (windows[index + 1] as number) &&
        startsOn(tariff, band, day - (windows[index + 2] as number), day, assume)
      ) {
        return band;
      }
    }
  }
  return tariff.base;
}

function priceInTariff(tariff: CompiledTariff, time: number): Priced {
  if (tariff.timeZone === null) return tariff.base;
  const local = localMinuteOf(tariff.timeZone, time);
  const day = Math.floor(local / 1440);
  const minute = local - day * 1440;
  consulted = 0;
  const band = bandAt(tariff, day, minute, 0);
  if (consulted === 0) return band;
  // The calendar cannot say whether a day is a holiday: every answer it could
  // give is tried, and when they differ the call is priced at the dearest.
  const candidates = new Set([
    band,
    bandAt(tariff, day, minute, 1),
    bandAt(tariff, day, minute, 2),
    bandAt(tariff, day, minute, 3),
  ]);
  if (candidates.size === 1) return band;
  return {
    prices: maxPrices([...candidates].map((candidate) => candidate.prices)),
    ref: Object.freeze({ entry: tariff.entry, band: 'unknown' }),
  };
}

/** The prices of a compiled entry at `time` (epoch ms), or null when no tariff is in force then. */
export function priceAt(entry: CompiledEntry, time: number): Priced | null {
  if (!Array.isArray(entry)) return entry as Priced;
  for (const tariff of entry as readonly CompiledTariff[]) {
    if (time >= tariff.from && time < tariff.until) return priceInTariff(tariff, time);
  }
  return null;
}

/** The dearest price of each kind a call in `[from, until]` could be charged, or null when no tariff overlaps. */
export function maxPriceBetween(entry: CompiledEntry, from: number, until: number): Prices | null {
  if (!Array.isArray(entry)) return (entry as Priced).prices;
  const overlapping = (entry as readonly CompiledTariff[]).filter(
    (tariff) => tariff.from <= until && tariff.until > from,
  );
  return overlapping.length === 0 ? null : maxPrices(overlapping.map((tariff) => tariff.max));
}
