import { boundAmount, type JournalClamps } from './journal-clamps.js';
import { JOURNAL_LIMITS, USAGE_COUNT_FIELDS, USAGE_DETAIL_FIELDS } from './journal-limits.js';

type Fields = Record<string, unknown>;

/**
 * A record's `usage` as a journal line writes it: the same object when the reader takes
 * it; else a copy whose token counts out of range are clamped or null (each noted), and
 * null for a usage that is not an object (noted). Other members are kept as they are.
 */
export function boundedUsage(usage: unknown, clamps: JournalClamps): unknown {
  if (usage === undefined || usage === null) return usage;
  if (!isFields(usage)) {
    clamps.note('usage', usage);
    return null;
  }
  let copy: Fields | null = null;
  for (const field of USAGE_COUNT_FIELDS) {
    const value = usage[field];
    const bounded = boundAmount(value, JOURNAL_LIMITS.maxTokens, `usage.${field}`, clamps);
    if (bounded !== value) {
      copy ??= { ...usage };
      copy[field] = bounded;
    }
  }
  for (const [details, field] of USAGE_DETAIL_FIELDS) {
    const nested = usage[details];
    const bounded = boundedDetails(nested, details, field, clamps, false);
    if (bounded !== nested) {
      copy ??= { ...usage };
      copy[details] = bounded;
    }
  }
  return copy ?? usage;
}

/**
 * Only the token counts of a `usage` the reader reads, each clamped as by
 * {@link boundedUsage}: what a line keeps of a
 * usage JSON cannot hold whole (too deep, a cycle, a `BigInt`, a throwing getter) or
 * too large for a line. Null when it has none. Never throws.
 */
export function usageCounts(usage: unknown, clamps: JournalClamps): Fields | null {
  if (!isFields(usage)) return null;
  const counts: Fields = {};
  for (const field of USAGE_COUNT_FIELDS) {
    const value = read(usage, field);
    const bounded = boundAmount(value, JOURNAL_LIMITS.maxTokens, `usage.${field}`, clamps);
    if (bounded !== undefined) counts[field] = bounded;
  }
  for (const [details, field] of USAGE_DETAIL_FIELDS) {
    const bounded = boundedDetails(read(usage, details), details, field, clamps, true);
    if (bounded !== undefined) counts[details] = bounded;
  }
  return Object.keys(counts).length > 0 ? counts : null;
}

// A usage's details object (`prompt_tokens_details`): the same when the reader takes it, else a copy
// with its count bounded (only the count, when `countOnly`), or null when it is not an object.
function boundedDetails(
  nested: unknown,
  details: string,
  field: string,
  clamps: JournalClamps,
  countOnly: boolean,
): unknown {
  if (nested === undefined || nested === null) return nested;
  if (!isFields(nested)) {
    clamps.note(`usage.${details}`, nested);
    return null;
  }
  const value = countOnly ? read(nested, field) : nested[field];
  const bounded = boundAmount(value, JOURNAL_LIMITS.maxTokens, `usage.${details}.${field}`, clamps);
  if (countOnly) return bounded === undefined ? {} : { [field]: bounded };
  return bounded === value ? nested : { ...nested, [field]: bounded };
}

function read(fields: Fields, key: string): unknown {
  try {
    return fields[key];
  } catch {
    return undefined;
  }
}

function isFields(value: unknown): value is Fields {
  try {
    return typeof value === 'object' && value !== null && !Array.isArray(value);
  } catch {
    return false;
  }
}
