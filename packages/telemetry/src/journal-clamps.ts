import { JOURNAL_LIMITS } from './journal-limits.js';
import { isJournalTime } from './journal-time.js';
import { shown } from './shown-value.js';

/**
 * The figures and names of one journal line written other than the record had them,
 * so that the reader takes the line: each field's path (`usage.prompt_tokens`) and its
 * original value as text (`-5`, `1e+308`, `"12"`, `an object`). The line's `clamped`.
 */
export class JournalClamps {
  #fields: Record<string, string> | null = null;

  /** Notes that the field at `path` was written other than `original`. */
  note(path: string, original: unknown): void {
    let text: string;
    try {
      text = shown(original);
      if (typeof original === 'string' && original.length > 40) text += ` (${original.length} characters)`;
    } catch {
      text = 'a value that cannot be shown';
    }
    this.#fields ??= {};
    this.#fields[path] = text;
  }

  /** The fields noted, by path, or null when every figure was written as it was. */
  get fields(): Readonly<Record<string, string>> | null {
    return this.#fields;
  }
}

/**
 * A figure the reader takes as absent, null or a finite number from 0 to `most`: kept
 * when it is one (a `BigInt` as its number); else noted and written clamped (below 0: 0;
 * above `most`, Infinity included: `most`), or null (NaN, or not a number).
 */
export function boundAmount(value: unknown, most: number, path: string, clamps: JournalClamps): unknown {
  if (value === undefined || value === null) return value;
  // A BigInt (JSON cannot hold one) counts as the number it is.
  const number = typeof value === 'bigint' ? Number(value) : value;
  if (typeof number === 'number' && number >= 0 && number <= most) return number;
  clamps.note(path, value);
  if (typeof number !== 'number' || Number.isNaN(number)) return null;
  return number < 0 ? 0 : most;
}

/**
 * A whole-number figure the reader takes as a safe integer from 0 to `most` (or absent;
 * null when `nullable`): kept when it is one; else noted and written rounded and
 * clamped, or null (0 when not `nullable`) for what is not a number.
 */
export function boundWhole(
  value: unknown,
  most: number,
  nullable: boolean,
  path: string,
  clamps: JournalClamps,
): unknown {
  if (value === undefined || (nullable && value === null)) return value;
  if (Number.isSafeInteger(value) && (value as number) >= 0 && (value as number) <= most) return value;
  clamps.note(path, value);
  if (typeof value !== 'number' || Number.isNaN(value)) return nullable ? null : 0;
  return Math.min(most, Math.max(0, Math.round(value)));
}

/**
 * A name the reader takes as a string of at most 256 characters (non-empty unless
 * `optional`, which also allows absent and null): kept when it is one; else noted and
 * written cut to 256 characters, or `fallback` for what is not a string.
 */
export function boundName(
  value: unknown,
  optional: boolean,
  fallback: string | null,
  path: string,
  clamps: JournalClamps,
): unknown {
  if (optional && (value === undefined || value === null)) return value;
  const most = JOURNAL_LIMITS.maxNameLength;
  if (typeof value === 'string' && value.length <= most && (optional || value !== '')) return value;
  clamps.note(path, value);
  if (typeof value !== 'string' || value === '') return fallback;
  // Never splitting a surrogate pair.
  const end = isHighSurrogate(value.charCodeAt(most - 1)) ? most - 1 : most;
  return value.slice(0, end);
}

/**
 * A time the reader takes (an ISO time with a zone, from 2000 to 2099): kept when it is
 * one; else noted and written as the nearest time in range (or now, when it is no time).
 */
export function boundTime(value: unknown, clamps: JournalClamps): unknown {
  if (isJournalTime(value)) return value;
  clamps.note('at', value);
  const parsed =
    value instanceof Date ? value.getTime() : typeof value === 'string' ? Date.parse(value) : Number.NaN;
  const at = Number.isFinite(parsed) ? parsed : Date.now();
  return new Date(
    Math.min(JOURNAL_LIMITS.latestAt - 1, Math.max(JOURNAL_LIMITS.earliestAt, at)),
  ).toISOString();
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}
