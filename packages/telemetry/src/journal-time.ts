import { JOURNAL_LIMITS } from './journal-limits.js';
import { kindOf, shown } from './shown-value.js';

// A strict ISO time: date, time and zone (as journals write it); no rolling over of impossible dates.
const ISO_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;

/**
 * The epoch milliseconds of a line's `at`, or why the reader does not trust it: an ISO
 * time with a zone, a real date, from 2000 (inclusive) to 2100 (exclusive).
 */
export function journalTimeOf(value: unknown): number | string {
  if (typeof value !== 'string') return `at: expected an ISO time, got ${kindOf(value)}`;
  const match = value.length <= 40 ? ISO_TIME.exec(value) : null;
  if (match === null)
    return `at: expected an ISO time with a zone (2026-11-23T09:00:00Z), got ${shown(value)}`;
  const [, year, month, day, hour, minute, second] = match.map(Number);
  const date = new Date(Date.UTC(year ?? 0, (month ?? 1) - 1, day ?? 1));
  if (
    date.getUTCMonth() !== (month ?? 1) - 1 ||
    date.getUTCDate() !== day ||
    (hour ?? 0) > 23 ||
    (minute ?? 0) > 59 ||
    (second ?? 0) > 59
  )
    return `at: not a real time: ${shown(value)}`;
  const at = Date.parse(value);
  if (!(at >= JOURNAL_LIMITS.earliestAt && at < JOURNAL_LIMITS.latestAt))
    return `at: ${shown(value)} is outside the years 2000 to 2099 a journal line may have`;
  return at;
}

/**
 * Whether the reader takes `value` as a line's `at`: {@link journalTimeOf} without the
 * message, quick (no parsing, no allocation) for the times `toISOString` gives, as the
 * adapter records them.
 */
export function isJournalTime(value: unknown): boolean {
  if (typeof value === 'string' && value.length === 24 && isCanonicalTime(value)) return true;
  return typeof journalTimeOf(value) === 'number';
}

/**
 * The epoch milliseconds of a record's `at` as `Date.parse` reads it (NaN when it cannot), without
 * parsing the times `toISOString` gives, as the adapter records them: those are read digit by digit.
 */
export function timeMs(value: unknown): number {
  if (typeof value === 'string' && value.length === 24 && isCanonicalTime(value))
    return Date.UTC(
      2000 + number(value, 2),
      number(value, 5) - 1,
      number(value, 8),
      number(value, 11),
      number(value, 14),
      number(value, 17),
      (value.charCodeAt(20) - 48) * 100 + number(value, 21),
    );
  return Date.parse(value as string);
}

const DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

// `20YY-MM-DDTHH:MM:SS.mmmZ`, a real date and time of the years 2000 to 2099.
function isCanonicalTime(text: string): boolean {
  for (const [index, code] of SEPARATORS) if (text.charCodeAt(index) !== code) return false;
  for (const index of DIGITS) {
    const code = text.charCodeAt(index);
    if (code < 48 || code > 57) return false;
  }
  if (text.charCodeAt(0) !== 50 || text.charCodeAt(1) !== 48) return false; // 20YY
  const year = 2000 + number(text, 2);
  const month = number(text, 5);
  const day = number(text, 8);
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  const days = month === 2 && leap ? 29 : (DAYS[month - 1] ?? 0);
  return (
    month >= 1 &&
    day >= 1 &&
    day <= days &&
    number(text, 11) <= 23 &&
    number(text, 14) <= 59 &&
    number(text, 17) <= 59
  );
}

// The separators of `YYYY-MM-DDTHH:MM:SS.mmmZ` by position, and the positions of its digits.
const SEPARATORS: readonly (readonly [number, number])[] = [
  [4, 45],
  [7, 45],
  [10, 84],
  [13, 58],
  [16, 58],
  [19, 46],
  [23, 90],
];
const DIGITS = [0, 1, 2, 3, 5, 6, 8, 9, 11, 12, 14, 15, 17, 18, 20, 21, 22];

function number(text: string, index: number): number {
  return (text.charCodeAt(index) - 48) * 10 + (text.charCodeAt(index + 1) - 48);
}
