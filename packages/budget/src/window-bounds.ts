/** A calendar period a scope's spend resets on. */
export type BudgetPeriod = 'hour' | 'day' | 'week' | 'month';

/**
 * A scope's calendar window: a period, in UTC, or with an IANA time zone (`Europe/Berlin`).
 * Weeks start on Monday 00:00, months on the 1st; a day in a zone is 23 or 25 hours across a
 * daylight-saving change.
 */
export type BudgetWindow = BudgetPeriod | { readonly period: BudgetPeriod; readonly timeZone?: string };

/** A window checked: its period and zone (`UTC` when none was given). */
export interface WindowRule {
  readonly period: BudgetPeriod;
  readonly timeZone: string;
}

/** One window, `[startMs, endMs)` in ms since the epoch. */
export interface WindowBounds {
  readonly startMs: number;
  readonly endMs: number;
}

const PERIODS: readonly BudgetPeriod[] = ['hour', 'day', 'week', 'month'];
const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
/** Every zone's offset from UTC is within this (the widest are +14:00 and −12:00). */
const MAX_OFFSET_MS = 15 * HOUR_MS;

/** Checks a scope's `window` (TypeError or RangeError naming `where`); undefined gives null. */
export function checkWindow(value: unknown, where: string): WindowRule | null {
  if (value === undefined) return null;
  const given = typeof value === 'string' ? { period: value } : value;
  if (given === null || typeof given !== 'object') {
    throw new TypeError(
      `${where} must be 'hour', 'day', 'week' or 'month', or { period, timeZone? }, got ${String(value)}`,
    );
  }
  const { period, timeZone, ...rest } = given as { period?: unknown; timeZone?: unknown };
  const extra = Object.keys(rest);
  if (extra.length > 0) {
    throw new TypeError(`${where} has an unknown key "${extra[0]}" (expected period, timeZone)`);
  }
  if (typeof period !== 'string' || !PERIODS.includes(period as BudgetPeriod)) {
    throw new TypeError(`${where}.period must be 'hour', 'day', 'week' or 'month', got ${String(period)}`);
  }
  const zone = timeZone ?? 'UTC';
  if (typeof zone !== 'string' || zone === '') {
    throw new TypeError(`${where}.timeZone must be an IANA time zone name such as 'Europe/Berlin'`);
  }
  try {
    formatterOf(zone);
  } catch {
    throw new RangeError(
      `${where}.timeZone must be an IANA time zone name such as 'Europe/Berlin', got ${JSON.stringify(zone)}`,
    );
  }
  return { period: period as BudgetPeriod, timeZone: zone };
}

/** The window of `rule` that holds the instant `atMs`: `[start, end)`. */
export function windowBounds(rule: WindowRule, atMs: number): WindowBounds {
  const { period, timeZone } = rule;
  if (period === 'hour') {
    // Local hours: the instant less its minutes, seconds and ms in the zone (a whole-hour change of
    // offset keeps them, so hours tile the time line).
    const parts = localParts(atMs, timeZone);
    const startMs = atMs - ((parts.minute * 60 + parts.second) * 1000 + parts.millisecond);
    return { startMs, endMs: startMs + HOUR_MS };
  }
  const at = localParts(atMs, timeZone);
  let first: LocalDate;
  let next: LocalDate;
  if (period === 'day') {
    first = at;
    next = addDays(at, 1);
  } else if (period === 'week') {
    // getUTCDay: 0 is Sunday; weeks start on Monday.
    const weekday = new Date(Date.UTC(at.year, at.month - 1, at.day)).getUTCDay();
    first = addDays(at, -((weekday + 6) % 7));
    next = addDays(first, 7);
  } else {
    first = { year: at.year, month: at.month, day: 1 };
    next = at.month === 12 ? { year: at.year + 1, month: 1, day: 1 } : { ...first, month: at.month + 1 };
  }
  return { startMs: startOfDay(first, timeZone), endMs: startOfDay(next, timeZone) };
}

interface LocalDate {
  readonly year: number;
  readonly month: number;
  readonly day: number;
}

interface LocalParts extends LocalDate {
  readonly hour: number;
  readonly minute: number;
  readonly second: number;
  readonly millisecond: number;
}

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterOf(timeZone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(timeZone);
  if (formatter === undefined) {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(timeZone, formatter);
  }
  return formatter;
}

/** The wall clock of `timeZone` at the instant `ms`. */
export function localParts(ms: number, timeZone: string): LocalParts {
  const millisecond = ((ms % 1000) + 1000) % 1000;
  if (timeZone === 'UTC') {
    const date = new Date(ms);
    return {
      year: date.getUTCFullYear(),
      month: date.getUTCMonth() + 1,
      day: date.getUTCDate(),
      hour: date.getUTCHours(),
      minute: date.getUTCMinutes(),
      second: date.getUTCSeconds(),
      millisecond,
    };
  }
  const fields: Record<string, number> = {};
  for (const part of formatterOf(timeZone).formatToParts(ms)) {
    if (part.type !== 'literal') fields[part.type] = Number(part.value);
  }
  return {
    year: fields.year ?? 0,
    month: fields.month ?? 1,
    day: fields.day ?? 1,
    hour: fields.hour ?? 0,
    minute: fields.minute ?? 0,
    second: fields.second ?? 0,
    millisecond,
  };
}

function addDays(date: LocalDate, days: number): LocalDate {
  const moved = new Date(Date.UTC(date.year, date.month - 1, date.day) + days * DAY_MS);
  return { year: moved.getUTCFullYear(), month: moved.getUTCMonth() + 1, day: moved.getUTCDate() };
}

function dayNumber(date: LocalDate): number {
  return Date.UTC(date.year, date.month - 1, date.day) / DAY_MS;
}

/**
 * The first instant whose local date in `timeZone` is `date` or later: local midnight, or where
 * a zone skips midnight, the instant its clocks jump to. Found by bisection over the instants
 * within the widest offset of that date's UTC midnight (the local date never goes back there).
 */
function startOfDay(date: LocalDate, timeZone: string): number {
  const utcMidnight = Date.UTC(date.year, date.month - 1, date.day);
  if (timeZone === 'UTC') return utcMidnight;
  const target = dayNumber(date);
  let low = utcMidnight - MAX_OFFSET_MS; // local date before `date` here
  let high = utcMidnight + MAX_OFFSET_MS; // `date` or later here
  // Offsets are whole minutes: bisect over minutes, then the answer is a minute's start.
  low = Math.floor(low / 60_000);
  high = Math.ceil(high / 60_000);
  while (high - low > 1) {
    const middle = Math.floor((low + high) / 2);
    if (dayNumber(localParts(middle * 60_000, timeZone)) >= target) high = middle;
    else low = middle;
  }
  return high * 60_000;
}
