import { describeType } from '@switchboard/adapter';

/** One line of a usage log, read: what to price it with, or why it cannot be costed. */
export type CostLine =
  | { readonly usage: Record<string, unknown>; readonly model: string; readonly at: string | undefined }
  | { readonly problem: string }
  | { readonly failedCall: true };

// A call record of a call that failed before a reply carried usage (`usage: null` with an
// `error` or an `outcome` other than 'ok'): nothing to cost, and nothing wrong with the line.
function isFailedCall(line: Record<string, unknown>): boolean {
  if (line.usage !== null) return false;
  const failed = line.error !== undefined && line.error !== null;
  return failed || (typeof line.outcome === 'string' && line.outcome !== 'ok');
}

/** The token fields of the cost rule; a line needs at least one. */
const TOKEN_FIELDS = [
  'prompt_tokens',
  'completion_tokens',
  'prompt_cache_hit_tokens',
  'prompt_cache_miss_tokens',
] as const;

function describeValue(value: unknown): string {
  const type = describeType(value);
  if (typeof value === 'string')
    return `string ${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)}`;
  return typeof value === 'number' ? String(value) : type;
}

// The cost rule counts a bad count as 0; a log line with one is reported instead, so a
// broken log never costs out as a smaller bill without anyone noticing.
function countProblem(field: string, value: unknown): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return null;
  return `${field}: expected a whole number >= 0, got ${describeValue(value)}`;
}

/**
 * Reads one parsed line: a usage object (token fields at the top), or a call
 * record with its `usage` inside; `model` and `at` from the line when it has them,
 * else `defaultModel` and no time. A failed call's record without usage is `failedCall`.
 */
export function readCostLine(value: unknown, defaultModel: string | undefined): CostLine {
  if (describeType(value) !== 'object')
    return { problem: `expected a usage object, got ${describeType(value)}` };
  const line = value as Record<string, unknown>;
  if (isFailedCall(line)) return { failedCall: true };
  const nested = line.usage;
  if (nested !== undefined && nested !== null && describeType(nested) !== 'object') {
    return { problem: `usage: expected an object, got ${describeType(nested)}` };
  }
  const usage = (nested ?? line) as Record<string, unknown>;
  const prefix = nested === undefined || nested === null ? '' : 'usage.';
  const details = usage.prompt_tokens_details;
  const cached =
    details !== null && typeof details === 'object'
      ? (details as Record<string, unknown>).cached_tokens
      : undefined;
  const counts: Array<[string, unknown]> = [
    ...TOKEN_FIELDS.map((field): [string, unknown] => [field, usage[field]]),
    ['prompt_tokens_details.cached_tokens', cached],
  ];
  for (const [field, count] of counts) {
    const problem = countProblem(`${prefix}${field}`, count);
    if (problem !== null) return { problem };
  }
  if (counts.every(([, count]) => count === undefined || count === null)) {
    return { problem: `no token fields (expected one of ${TOKEN_FIELDS.join(', ')})` };
  }
  const model = line.model ?? defaultModel;
  if (model === undefined) return { problem: 'no model: the line has no "model" and no --model was given' };
  if (typeof model !== 'string' || model.trim() === '') {
    return { problem: `model: expected a model id, got ${describeValue(model)}` };
  }
  const at = line.at;
  if (at !== undefined && (typeof at !== 'string' || Number.isNaN(Date.parse(at)))) {
    return { problem: `at: expected an ISO time, got ${describeValue(at)}` };
  }
  return { usage, model: model.trim(), at };
}
