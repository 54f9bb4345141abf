import { boundAmount, boundName, boundTime, boundWhole, type JournalClamps } from './journal-clamps.js';
import { JOURNAL_LIMITS, USAGE_COUNT_FIELDS, USAGE_DETAIL_FIELDS } from './journal-limits.js';
import { isJournalTime } from './journal-time.js';
import { boundedUsage } from './journal-usage.js';
import { derivedSettlement, isSettlementKind } from './settlement.js';

type Fields = Record<string, unknown>;

/** The error of a line whose record said the call failed in a shape no reader takes. */
const UNKNOWN_ERROR = Object.freeze({ kind: 'unknown', status: null, degradation: false });

/**
 * What a journal line must write differently from the record so that its reader takes
 * the line (each change noted in `clamps`), and the record's `settlement` when it has
 * none (derived as for a line of an older journal): null when nothing. The fields the
 * reader checks are bounded — names cut to 256 characters, figures clamped into range,
 * a time outside 2000–2099 moved to the nearest, token counts of `usage` clamped.
 */
export function recordOverrides(record: Fields, clamps: JournalClamps): Fields | null {
  if (inRange(record)) return null;
  const overrides: Fields = {};
  let changed = false;
  const bound = (field: string, bounded: unknown) => {
    if (bounded === record[field]) return;
    overrides[field] = bounded;
    changed = true;
  };
  bound('model', boundName(record.model, false, '(unknown)', 'model', clamps));
  for (const field of ['callId', 'host', 'role', 'tenant', 'pricedAs', 'priceSource'])
    bound(field, boundName(record[field], true, null, field, clamps));
  bound('costUsd', boundAmount(record.costUsd, JOURNAL_LIMITS.maxCostUsd, 'costUsd', clamps));
  bound(
    'costNanoUsd',
    boundWhole(record.costNanoUsd, JOURNAL_LIMITS.maxCostUsd * 1e9, true, 'costNanoUsd', clamps),
  );
  bound('durationMs', boundAmount(record.durationMs, Number.MAX_SAFE_INTEGER, 'durationMs', clamps));
  bound('attempts', boundWhole(record.attempts, JOURNAL_LIMITS.maxAttempts, false, 'attempts', clamps));
  bound('pid', boundWhole(record.pid, JOURNAL_LIMITS.maxPid, true, 'pid', clamps));
  bound('at', boundTime(record.at, clamps));
  bound('usage', boundedUsage(record.usage, clamps));
  bound('error', boundedError(record.error, clamps));
  if (!isSettlementKind(record.settlement)) {
    if (record.settlement !== undefined && record.settlement !== null)
      clamps.note('settlement', record.settlement);
    overrides.settlement = derivedSettlement({ ...record, ...overrides });
    changed = true;
  }
  return changed ? overrides : null;
}

// The quick check of what recordOverrides bounds, with no allocation: true for records as the adapter
// makes them (every figure in range); false sends a record to the field-by-field bounding.
function inRange(record: Fields): boolean {
  const most = JOURNAL_LIMITS;
  return (
    isName(record.model, false) &&
    isName(record.callId, true) &&
    isName(record.host, true) &&
    (record.pid === undefined ||
      (Number.isSafeInteger(record.pid) &&
        (record.pid as number) >= 0 &&
        (record.pid as number) <= most.maxPid)) &&
    isName(record.role, true) &&
    isName(record.tenant, true) &&
    isName(record.pricedAs, true) &&
    isName(record.priceSource, true) &&
    isAmount(record.costUsd, most.maxCostUsd) &&
    (record.costNanoUsd === null ||
      record.costNanoUsd === undefined ||
      (Number.isSafeInteger(record.costNanoUsd) &&
        (record.costNanoUsd as number) >= 0 &&
        (record.costNanoUsd as number) <= most.maxCostUsd * 1e9)) &&
    (record.durationMs === undefined || isAmount(record.durationMs, Number.MAX_SAFE_INTEGER)) &&
    (record.attempts === undefined ||
      (Number.isSafeInteger(record.attempts) &&
        (record.attempts as number) >= 0 &&
        (record.attempts as number) <= most.maxAttempts)) &&
    isSettlementKind(record.settlement) &&
    isPlainError(record.error) &&
    isPlainUsage(record.usage) &&
    isJournalTime(record.at)
  );
}

function isName(value: unknown, optional: boolean): boolean {
  if (typeof value === 'string')
    return value.length <= JOURNAL_LIMITS.maxNameLength && (optional || value !== '');
  return optional && (value === null || value === undefined);
}

function isAmount(value: unknown, most: number): boolean {
  return value === null || value === undefined || (typeof value === 'number' && value >= 0 && value <= most);
}

function isPlainError(error: unknown): boolean {
  if (error === null || error === undefined) return true;
  if (typeof error !== 'object' || Array.isArray(error)) return false;
  const { kind, status, degradation } = error as Fields;
  return (
    isName(kind, false) &&
    (status === null ||
      status === undefined ||
      (Number.isInteger(status) && (status as number) >= 0 && (status as number) < 1000)) &&
    (degradation === undefined || typeof degradation === 'boolean')
  );
}

function isPlainUsage(usage: unknown): boolean {
  if (usage === null || usage === undefined) return true;
  if (typeof usage !== 'object' || Array.isArray(usage)) return false;
  const entry = usage as Fields;
  for (const field of USAGE_COUNT_FIELDS) if (!isAmount(entry[field], JOURNAL_LIMITS.maxTokens)) return false;
  for (const [details, field] of USAGE_DETAIL_FIELDS) if (!isDetails(entry[details], field)) return false;
  return true;
}

function isDetails(details: unknown, field: string): boolean {
  if (details === null || details === undefined) return true;
  if (typeof details !== 'object' || Array.isArray(details)) return false;
  return isAmount((details as Fields)[field], JOURNAL_LIMITS.maxTokens);
}

/**
 * The fields of a record a journal line holds, read one by one (a field that throws when
 * read is absent): what the last resort writes when the record itself cannot be written.
 */
export function recordCore(record: Fields): Fields {
  const core: Fields = {};
  for (const field of [
    'callId',
    'host',
    'pid',
    'model',
    'usage',
    'costUsd',
    'costNanoUsd',
    'pricedAs',
    'priceSource',
    'at',
    'durationMs',
    'attempts',
    'role',
    'tenant',
    'settlement',
  ])
    core[field] = read(record, field);
  const error = read(record, 'error');
  core.error =
    typeof error === 'object' && error !== null
      ? { kind: read(error, 'kind'), status: read(error, 'status'), degradation: read(error, 'degradation') }
      : error;
  const streamed = read(record, 'streamed');
  if (typeof streamed === 'boolean') core.streamed = streamed;
  // What re-deriving the cost needs (`report --verify`): the price data's version, the entry's date, the tariff.
  for (const field of ['priceVersion', 'priceCheckedAt']) {
    const value = read(record, field);
    if (typeof value === 'string' && value.length <= JOURNAL_LIMITS.maxNameLength) core[field] = value;
  }
  const tariff = read(record, 'tariff');
  const entry = read(tariff, 'entry');
  const band = read(tariff, 'band');
  if (
    typeof entry === 'string' &&
    entry.length <= JOURNAL_LIMITS.maxNameLength &&
    (band === null || (typeof band === 'string' && band.length <= JOURNAL_LIMITS.maxNameLength))
  )
    core.tariff = { entry, band };
  const providerCostUsd = read(record, 'providerCostUsd');
  if (
    typeof providerCostUsd === 'number' &&
    providerCostUsd >= 0 &&
    providerCostUsd <= JOURNAL_LIMITS.maxCostUsd
  )
    core.providerCostUsd = providerCostUsd;
  // The budget scopes the call was charged to: what `report --verify` checks settled spend against.
  const budgets = coreBudgets(read(record, 'budgets'));
  if (budgets.length > 0) core.budgets = budgets;
  return core;
}

/** A record's `budgets` as the last resort keeps them: at most 16, each a bounded scope and a limit. */
function coreBudgets(budgets: unknown): Fields[] {
  if (!Array.isArray(budgets)) return [];
  const kept: Fields[] = [];
  for (const entry of budgets.slice(0, 16)) {
    const scope = read(entry, 'scope');
    const limitUsd = read(entry, 'limitUsd');
    if (typeof scope !== 'string' || scope.length > JOURNAL_LIMITS.maxNameLength) continue;
    if (limitUsd === null || (typeof limitUsd === 'number' && Number.isFinite(limitUsd)))
      kept.push({ scope, limitUsd });
  }
  return kept;
}

function boundedError(error: unknown, clamps: JournalClamps): unknown {
  if (error === undefined || error === null) return error;
  if (typeof error !== 'object' || Array.isArray(error)) {
    clamps.note('error', error);
    // A falsy error says the call did not fail (outcome `ok`); any other is a failure of unknown kind.
    return error ? UNKNOWN_ERROR : null;
  }
  const fields = error as Fields;
  const kind = boundName(fields.kind, false, 'unknown', 'error.kind', clamps);
  const status = boundStatus(fields.status, clamps);
  const degradation =
    fields.degradation === undefined || typeof fields.degradation === 'boolean'
      ? fields.degradation
      : noted(clamps, 'error.degradation', fields.degradation, fields.degradation === true);
  if (kind === fields.kind && status === fields.status && degradation === fields.degradation) return error;
  return { ...fields, kind, status, degradation };
}

function boundStatus(status: unknown, clamps: JournalClamps): unknown {
  if (status === undefined || status === null) return status;
  if (Number.isInteger(status) && (status as number) >= 0 && (status as number) < 1000) return status;
  return noted(clamps, 'error.status', status, null);
}

function noted(clamps: JournalClamps, path: string, original: unknown, written: unknown): unknown {
  clamps.note(path, original);
  return written;
}

function read(fields: unknown, key: string): unknown {
  try {
    return (fields as Fields)[key];
  } catch {
    return undefined;
  }
}
