import { costNanoUsdOf } from './cost-nano-usd-of.js';
import { JOURNAL_LIMITS, USAGE_COUNT_FIELDS, USAGE_DETAIL_FIELDS } from './journal-limits.js';
import { JOURNAL_VERSION, type JournalLine } from './journal-line.js';
import { journalTimeOf } from './journal-time.js';
import { derivedSettlement, isSettlementKind, type SettlementKind } from './settlement.js';
import { kindOf, shown } from './shown-value.js';

/** A journal line that passed every check, with its cost in nano-dollars. */
export interface CheckedJournalLine {
  readonly line: JournalLine;
  /** The epoch milliseconds of `at`. */
  readonly at: number;
  /** `costNanoUsd` when the line has it, else `round(costUsd * 1e9)`; null when unpriced. */
  readonly costNanoUsd: number | null;
  /**
   * The line's `settlement`, or, for a line written before the field existed, the one
   * `derivedSettlement` gives (the line then has it set too).
   */
  readonly settlement: SettlementKind;
}

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
  if (fields.v !== undefined && fields.v !== 1 && fields.v !== JOURNAL_VERSION)
    return `v: expected 1 or ${JOURNAL_VERSION} (the journal formats this reader knows), got ${shown(fields.v)}`;
  const problem =
    name(fields, 'model', false) ??
    name(fields, 'callId', true) ??
    name(fields, 'host', true) ??
    whole(fields, 'pid', 0, JOURNAL_LIMITS.maxPid) ??
    whole(fields, 'seq', 1, Number.MAX_SAFE_INTEGER) ??
    name(fields, 'role', true) ??
    name(fields, 'tenant', true) ??
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
    endpoint(fields.endpoint) ??
    settlement(fields.settlement);
  if (problem !== undefined) return problem;
  const at = journalTimeOf(fields.at);
  if (typeof at === 'string') return at;
  const costNanoUsd = costNanoUsdOf(fields);
  const tenantKnown = fields.tenant !== undefined;
  if (isSettlementKind(fields.settlement) && tenantKnown)
    return { line: value as unknown as JournalLine, at, costNanoUsd, settlement: fields.settlement };
  // A line of an older journal: what it lacks (its settlement, derived; its tenant, null) is set on
  // a copy of the line, as readers see it.
  const derived = isSettlementKind(fields.settlement) ? fields.settlement : derivedSettlement(fields);
  return {
    line: {
      ...fields,
      settlement: derived,
      tenant: tenantKnown ? fields.tenant : null,
    } as unknown as JournalLine,
    at,
    costNanoUsd,
    settlement: derived,
  };
}

function settlement(value: unknown): string | undefined {
  if (value === undefined || value === null || isSettlementKind(value)) return undefined;
  return `settlement: expected exact, estimate, unsettled, none or null, got ${kindOf(value)}`;
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

function whole(fields: Fields, field: string, least: number, most: number): string | undefined {
  const value = fields[field];
  if (value === undefined || value === null) return undefined;
  if (!Number.isSafeInteger(value) || (value as number) < least || (value as number) > most)
    return `${field}: expected a whole number from ${least} to ${most}, got ${shown(value)}`;
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
  for (const field of USAGE_COUNT_FIELDS) {
    const problem = amount(value, field, JOURNAL_LIMITS.maxTokens);
    if (problem !== undefined) return `usage.${problem}`;
  }
  for (const [details, field] of USAGE_DETAIL_FIELDS) {
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
