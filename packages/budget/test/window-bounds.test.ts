// Calendar windows: [start, end) of the window holding an instant, against an oracle built on
// Intl's wall clock (the window's local key is the instant's; one ms before the start and the end
// itself are in other windows), over random instants from 1990 to 2060 in UTC, America/New_York,
// Europe/Berlin, Asia/Kolkata and Australia/Sydney; and the calendar's odd days by name. Seeded:
// WINDOW_SEED=<n> replays a run; fast-check prints the seed on failure.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type BudgetPeriod,
  checkWindow,
  localParts,
  type WindowRule,
  windowBounds,
} from '../src/window-bounds.js';

const SEED = process.env.WINDOW_SEED === undefined ? undefined : Number(process.env.WINDOW_SEED);
const ZONES = ['UTC', 'America/New_York', 'Europe/Berlin', 'Asia/Kolkata', 'Australia/Sydney'];
const PERIODS: BudgetPeriod[] = ['hour', 'day', 'week', 'month'];
const HOUR = 3_600_000;

/** The window's name in the zone's calendar: the same for every instant of one window. */
function localKey(rule: WindowRule, ms: number): string {
  const p = localParts(ms, rule.timeZone);
  // An hour is named with the zone's offset too: the hour a DST change repeats (01:00 twice) is two windows.
  if (rule.period === 'hour') {
    const offset = Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second, p.millisecond) - ms;
    return `${p.year}-${p.month}-${p.day}T${p.hour}${offset >= 0 ? '+' : ''}${offset}`;
  }
  if (rule.period === 'day') return `${p.year}-${p.month}-${p.day}`;
  if (rule.period === 'month') return `${p.year}-${p.month}`;
  const noon = Date.UTC(p.year, p.month - 1, p.day, 12);
  const monday = new Date(noon - ((new Date(noon).getUTCDay() + 6) % 7) * 24 * HOUR);
  return monday.toISOString().slice(0, 10);
}

function at(iso: string): number {
  return Date.parse(iso);
}

describe('windowBounds', () => {
  it('holds the instant, and its bounds are where the local calendar turns (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: at('1990-01-01T00:00:00Z'), max: at('2060-01-01T00:00:00Z') }),
        fc.constantFrom(...PERIODS),
        fc.constantFrom(...ZONES),
        (instant, period, timeZone) => {
          const rule = { period, timeZone };
          const { startMs, endMs } = windowBounds(rule, instant);
          expect(startMs).toBeLessThanOrEqual(instant);
          expect(endMs).toBeGreaterThan(instant);
          const key = localKey(rule, instant);
          expect(localKey(rule, startMs)).toBe(key);
          expect(localKey(rule, endMs - 1)).toBe(key);
          expect(localKey(rule, startMs - 1)).not.toBe(key);
          expect(localKey(rule, endMs)).not.toBe(key);
          // The next window starts where this one ends.
          expect(windowBounds(rule, endMs).startMs).toBe(endMs);
          const start = localParts(startMs, timeZone);
          if (period !== 'hour') expect([start.hour, start.minute, start.second]).toEqual([0, 0, 0]);
          if (period === 'month') expect(start.day).toBe(1);
        },
      ),
      { numRuns: 2000, ...(SEED === undefined ? {} : { seed: SEED }) },
    );
  });

  it('holds near DST changes and month ends too (property over March, October, November and month ends)', () => {
    const instant = fc
      .record({
        year: fc.integer({ min: 2000, max: 2045 }),
        month: fc.constantFrom(2, 3, 4, 10, 11, 12),
        day: fc.constantFrom(1, 7, 8, 14, 25, 26, 27, 28, 29, 30, 31),
        shift: fc.integer({ min: -36 * HOUR, max: 36 * HOUR }),
      })
      .map(({ year, month, day, shift }) => Date.UTC(year, month - 1, day) + shift);
    fc.assert(
      fc.property(instant, fc.constantFrom(...PERIODS), fc.constantFrom(...ZONES), (at, period, timeZone) => {
        const rule = { period, timeZone };
        const { startMs, endMs } = windowBounds(rule, at);
        const key = localKey(rule, at);
        expect(startMs <= at && at < endMs).toBe(true);
        expect([localKey(rule, startMs), localKey(rule, endMs - 1)]).toEqual([key, key]);
        expect([localKey(rule, startMs - 1), localKey(rule, endMs)]).not.toContain(key);
      }),
      { numRuns: 3000, ...(SEED === undefined ? {} : { seed: SEED }) },
    );
  });

  it.each([
    // [zone, an instant in the day, its start, its end, hours]
    ['America/New_York', '2026-03-08T12:00:00Z', '2026-03-08T05:00:00Z', '2026-03-09T04:00:00Z', 23],
    ['America/New_York', '2026-11-01T12:00:00Z', '2026-11-01T04:00:00Z', '2026-11-02T05:00:00Z', 25],
    ['Europe/Berlin', '2026-03-29T12:00:00Z', '2026-03-28T23:00:00Z', '2026-03-29T22:00:00Z', 23],
    ['Europe/Berlin', '2026-10-25T12:00:00Z', '2026-10-24T22:00:00Z', '2026-10-25T23:00:00Z', 25],
    ['UTC', '2028-02-29T23:59:59.999Z', '2028-02-29T00:00:00Z', '2028-03-01T00:00:00Z', 24],
  ])('a day in %s holding %s is [%s, %s): %i hours', (timeZone, instant, start, end, hours) => {
    const bounds = windowBounds({ period: 'day', timeZone }, at(instant));
    expect(bounds).toEqual({ startMs: at(start), endMs: at(end) });
    expect((bounds.endMs - bounds.startMs) / HOUR).toBe(hours);
  });

  it.each([
    ['2026-02-14T00:00:00Z', 28],
    ['2028-02-14T00:00:00Z', 29],
    ['2026-04-30T23:59:59.999Z', 30],
    ['2026-12-31T23:59:59.999Z', 31],
  ])('the month holding %s has %i days', (instant, days) => {
    const { startMs, endMs } = windowBounds({ period: 'month', timeZone: 'UTC' }, at(instant));
    expect(new Date(startMs).getUTCDate()).toBe(1);
    expect((endMs - startMs) / (24 * HOUR)).toBe(days);
  });

  it('a week starts on Monday 00:00 in its zone', () => {
    // Sunday 2026-11-29, 23:30 in Berlin: the week of Monday 2026-11-23.
    const bounds = windowBounds({ period: 'week', timeZone: 'Europe/Berlin' }, at('2026-11-29T22:30:00Z'));
    expect(new Date(bounds.startMs).toISOString()).toBe('2026-11-22T23:00:00.000Z');
    expect(new Date(bounds.endMs).toISOString()).toBe('2026-11-29T23:00:00.000Z');
    // Monday 00:00 UTC is a week's first instant.
    expect(windowBounds({ period: 'week', timeZone: 'UTC' }, at('2026-11-30T00:00:00Z')).startMs).toBe(
      at('2026-11-30T00:00:00Z'),
    );
  });

  it('the hour a DST change repeats is two windows, each an hour', () => {
    for (const [zone, first] of [
      ['America/New_York', '2026-11-01T05:00:00Z'],
      ['Europe/Berlin', '2026-10-25T00:00:00Z'],
    ] as const) {
      const rule = { period: 'hour' as const, timeZone: zone };
      const once = windowBounds(rule, at(first) + 1000);
      const again = windowBounds(rule, at(first) + HOUR + 1000);
      expect([once.startMs, once.endMs, again.endMs]).toEqual([
        at(first),
        at(first) + HOUR,
        at(first) + 2 * HOUR,
      ]);
      expect(localKey(rule, once.startMs)).not.toBe(localKey(rule, again.startMs));
    }
  });

  it('an hour across a DST change is an hour', () => {
    // 2026-11-01 01:30 EDT, then 01:30 EST an hour later: two windows.
    const first = windowBounds({ period: 'hour', timeZone: 'America/New_York' }, at('2026-11-01T05:30:00Z'));
    const second = windowBounds({ period: 'hour', timeZone: 'America/New_York' }, at('2026-11-01T06:30:00Z'));
    expect(first.endMs).toBe(second.startMs);
    expect(second.endMs - second.startMs).toBe(HOUR);
  });
});

describe('checkWindow', () => {
  it('takes a period or { period, timeZone }', () => {
    expect(checkWindow('day', 'scope.window')).toEqual({ period: 'day', timeZone: 'UTC' });
    expect(checkWindow({ period: 'month', timeZone: 'Europe/Berlin' }, 'w')).toEqual({
      period: 'month',
      timeZone: 'Europe/Berlin',
    });
    expect(checkWindow(undefined, 'w')).toBeNull();
  });

  it('names the field and what was expected', () => {
    expect(() => checkWindow('daily', 'scope.window')).toThrow(/scope\.window\.period must be 'hour'/);
    expect(() => checkWindow({ period: 'day', timeZone: 'Mars/Olympus' }, 'scope.window')).toThrow(
      /scope\.window\.timeZone must be an IANA time zone name.*Mars\/Olympus/,
    );
    expect(() => checkWindow({ period: 'day', zone: 'UTC' }, 'scope.window')).toThrow(/unknown key "zone"/);
    expect(() => checkWindow(5, 'scope.window')).toThrow(TypeError);
  });
});
