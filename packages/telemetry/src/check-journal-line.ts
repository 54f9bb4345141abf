import { costNanoUsdOf } from './cost-nano-usd-of.js';
import { JOURNAL_LIMITS } from './journal-limits.js';
import { JOURNAL_VERSION, type JournalLine } from './journal-line.js';

/** A journal line that passed every check, with its cost in nano-dollars. */
export interface CheckedJournalLine {
  readonly line: JournalLine;
  /** The epoch milliseconds of `at`. */
  readonly at: number;
  /** `costNanoUsd` when the line has it, else `round(costUsd * 1e9)`; null when unpriced. */
  readonly costNanoUsd: number | null;
}

// A strict ISO time: date, time and zone (as journals write it); no rolling over of impossible dates.
const ISO_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;
const TOKEN_FIELDS = [
  'prompt_tokens',
  'completion_tokens',
  'total_tokens',
  'prompt_cache_hit_tokens',
  'prompt_cache_miss_tokens',
] as const;

type Fields = Record<string, unknown>;

/**
 * Checks a parsed journal line against the one schema every journal reader
 * shares: field types, finite non-negative costs and token counts, an `at`
 * within {@link JOURNAL_LIMITS} (2000 to 2100), names and addresses of bounded
 * length. Returns the line, or why it cannot be trusted (`field: expected ...`).
 */
export function checkJournalLine(value: unknown): CheckedJournalLine | string {
  if (!isObject(value)) return `expected a JSON object (a call record), got ${kindOf(value)}`;
  const fields = value;
  if (fields.v !== undefined && fields.v !== JOURNAL_VERSION)
    return `v: expected ${JOURNAL_VERSION} (the journal format this reader knows), got ${shown(fields.v)}`;
  const problem =
    name(fields, 'model', false) ??
    name(fields, 'role', true) ??
    name(fields, 'pricedAs', true) ??
    name(fields, 'priceSource', true) ??
    name(fields, 'outcome', true) ??
    flag(fields, 'degradation') ??
    amount(fields, 'costUsd', JOURNAL_LIMITS.maxCostUsd) ??
    nanoAmount(fields) ??
    amount(fields, 'durationMs', Number.MAX_SAFE_INTEGER) ??
    attempts(fields) ??
    usage(fields.usage) ??
    callError(fields.error) ??
    endpoint(fields.endpoint);
  if (problem !== undefined) return problem;
  const at = time(fields.at);
  if (typeof at === 'string') return at;
  const costNanoUsd = costNanoUsdOf(fields);
  return { line: value as unknown as JournalLine, at, costNanoUsd };
}

function time(value: unknown): number | string {
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

function name(fields: Fields, field: string, optional: boolean): string | undefined {
  const value = fields[field];
  if (optional && (value === undefined || value === null)) return undefined;
  if (typeof value !== 'string' || (!optional && value === ''))
    return `${field}: expected ${optional ? 'a string or null' : 'a non-empty string'}, got ${kindOf(value)}`;
  if (value.length > JOURNAL_LIMITS.maxNameLength)
    return `${field}: longer than ${JOURNAL_LIMITS.maxNameLength} characters (${value.length})`;
  return undefined;
}

function flag(fields: Fields, field: string): string | undefined {
  const value = fields[field];
  if (value === undefined || typeof value === 'boolean') return undefined;
  return `${field}: expected true or false, got ${kindOf(value)}`;
}

function amount(fields: Fields, field: string, most: number): string | undefined {
  const value = fields[field];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0)
    return `${field}: expected a finite number >= 0, got ${shown(value)}`;
  if (value > most) return `${field}: ${value} is more than the most a call may have (${most})`;
  return undefined;
}

function nanoAmount(fields: Fields): string | undefined {
  const value = fields.costNanoUsd;
  if (value === undefined || value === null) return undefined;
  if (!Number.isSafeInteger(value) || (value as number) < 0)
    return `costNanoUsd: expected a whole number >= 0, got ${shown(value)}`;
  if ((value as number) > JOURNAL_LIMITS.maxCostUsd * 1e9)
    return `costNanoUsd: ${value} is more than the most a call may cost ($${JOURNAL_LIMITS.maxCostUsd})`;
  return undefined;
}

function attempts(fields: Fields): string | undefined {
  const value = fields.attempts;
  if (value === undefined) return undefined;
  if (!Number.isSafeInteger(value) || (value as number) < 0 || (value as number) > JOURNAL_LIMITS.maxAttempts)
    return `attempts: expected a whole number from 0 to ${JOURNAL_LIMITS.maxAttempts}, got ${shown(value)}`;
  return undefined;
}

function usage(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (!isObject(value)) return `usage: expected an object or null, got ${kindOf(value)}`;
  for (const field of TOKEN_FIELDS) {
    const problem = amount(value, field, JOURNAL_LIMITS.maxTokens);
    if (problem !== undefined) return `usage.${problem}`;
  }
  for (const [details, field] of [
    ['prompt_tokens_details', 'cached_tokens'],
    ['completion_tokens_details', 'reasoning_tokens'],
  ] as const) {
    const nested = value[details];
    if (nested === undefined || nested === null) continue;
    if (!isObject(nested)) return `usage.${details}: expected an object or null, got ${kindOf(nested)}`;
    const problem = amount(nested, field, JOURNAL_LIMITS.maxTokens);
    if (problem !== undefined) return `usage.${details}.${problem}`;
  }
  return undefined;
}

function callError(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (!isObject(value)) return `error: expected an object or null, got ${kindOf(value)}`;
  const problem = name(value, 'kind', false) ?? flag(value, 'degradation');
  if (problem !== undefined) return `error.${problem}`;
  const status = value.status;
  if (
    status !== undefined &&
    status !== null &&
    !(Number.isInteger(status) && (status as number) >= 0 && (status as number) < 1000)
  )
    return `error.status: expected an HTTP status or null, got ${shown(status)}`;
  return undefined;
}

function endpoint(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (!isObject(value)) return `endpoint: expected an object or null, got ${kindOf(value)}`;
  const problem = name(value, 'provider', false) ?? flag(value, 'thinking');
  if (problem !== undefined) return `endpoint.${problem}`;
  if (typeof value.baseUrl !== 'string')
    return `endpoint.baseUrl: expected a string, got ${kindOf(value.baseUrl)}`;
  if (value.baseUrl.length > JOURNAL_LIMITS.maxUrlLength)
    return `endpoint.baseUrl: longer than ${JOURNAL_LIMITS.maxUrlLength} characters`;
  return undefined;
}

function isObject(value: unknown): value is Fields {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  if (typeof value === 'string') return `a string (${shown(value)})`;
  return `${typeof value === 'number' ? 'the number' : typeof value} ${shown(value)}`;
}

// A value as a problem message quotes it: short, one line (JSON escapes newlines and controls). Objects
// and arrays are named, never converted: a parsed line's {"toString": []} must not throw.
function shown(value: unknown): string {
  const text =
    typeof value === 'string'
      ? JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)
      : typeof value === 'number' || typeof value === 'boolean'
        ? String(value)
        : value === null
          ? 'null'
          : Array.isArray(value)
            ? 'an array'
            : typeof value === 'object'
              ? 'an object'
              : typeof value;
  return text.length > 60 ? `${text.slice(0, 60)}…` : text;
}
