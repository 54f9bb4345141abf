import type { FaultPlan, FaultRule } from './fault-rule.js';

/** What a fault rule is matched against. */
export interface FaultTarget {
  readonly number: number;
  /** The request's path, query string dropped. */
  readonly path: string;
  /** The path below the flavour's base path (`/chat/completions` for `/api/v1/chat/completions`). */
  readonly route: string;
  readonly models: readonly string[];
}

const SELECTORS = ['requests', 'model', 'path', 'times'] as const;
const FLAGS = [
  'reset',
  'emptyBody',
  'whitespaceBody',
  'endlessBody',
  'emptyContent',
  'noChoices',
  'truncate',
  'cutOff',
] as const;
const EFFECTS = [
  'delayMs',
  'redirect',
  'body',
  'deepErrorBody',
  'errorInBody',
  'modelRejected',
  'status',
  'trickleMs',
  'keepAliveNewlines',
  'cutOffAfterBytes',
  'stream',
  'usage',
  'listing',
  ...FLAGS,
] as const;
const KNOWN = new Set<string>([
  ...SELECTORS,
  ...EFFECTS,
  'contentType',
  'message',
  'retryAfter',
  'retryAfterMs',
  'trickleBytes',
  'keepAliveMs',
]);
const WORDINGS = ['listing', 'but-you-passed', 'not-exist'];
const REDIRECTS = [301, 302, 303, 307, 308];

/** A validated fault plan that counts how often each rule was used. */
export class FaultSchedule {
  readonly #rules: readonly FaultRule[];
  readonly #used: number[];

  /** @throws TypeError naming the bad rule and field */
  constructor(plan: FaultPlan = []) {
    if (!Array.isArray(plan)) throw new TypeError('faults must be an array of fault rules');
    plan.forEach(validateRule);
    this.#rules = plan.map((rule) => Object.freeze({ ...rule }));
    this.#used = plan.map(() => 0);
  }

  /** Returns the first rule that matches `target` and has uses left, and counts the use. */
  take(target: FaultTarget): FaultRule | null {
    for (const [index, rule] of this.#rules.entries()) {
      const used = this.#used[index] ?? 0;
      if (rule.times !== undefined && used >= rule.times) continue;
      if (!matches(rule, target)) continue;
      this.#used[index] = used + 1;
      return rule;
    }
    return null;
  }
}

function matches(rule: FaultRule, target: FaultTarget): boolean {
  if (rule.requests !== undefined) {
    const numbers = typeof rule.requests === 'number' ? [rule.requests] : rule.requests;
    if (!numbers.includes(target.number)) return false;
  }
  if (rule.model !== undefined && !target.models.includes(rule.model)) return false;
  if (rule.path !== undefined && rule.path !== target.path && rule.path !== target.route) return false;
  return true;
}

function validateRule(rule: unknown, index: number): void {
  const where = `faults[${index}]`;
  if (rule === null || typeof rule !== 'object' || Array.isArray(rule)) {
    throw new TypeError(`${where} must be a fault rule object`);
  }
  const record = rule as Record<string, unknown>;
  for (const key of Object.keys(record)) {
    if (!KNOWN.has(key)) throw new TypeError(`${where} has an unknown field '${key}'`);
  }
  // `usage: false` replaces the usage with false: any value but undefined is an effect.
  if (!EFFECTS.some((key) => record[key] !== undefined && (record[key] !== false || key === 'usage'))) {
    throw new TypeError(`${where} has no effect: set one of ${EFFECTS.join(', ')}`);
  }
  const requests = record.requests;
  if (requests !== undefined) {
    const list = Array.isArray(requests) ? requests : [requests];
    if (list.length === 0 || !list.every((value) => Number.isInteger(value) && (value as number) >= 1)) {
      throw new TypeError(`${where}.requests must be a positive integer or a non-empty array of them`);
    }
  }
  expectNumber(record, 'times', where, { integer: true, min: 1 });
  expectNumber(record, 'delayMs', where, { integer: false, min: 0 });
  expectNumber(record, 'status', where, { integer: true, min: 100, max: 599 });
  if (typeof record.retryAfter === 'string') {
    if (record.retryAfter.trim() === '')
      throw new TypeError(`${where}.retryAfter must not be an empty string`);
  } else {
    expectNumber(record, 'retryAfter', where, { integer: false, min: 0 });
  }
  expectNumber(record, 'retryAfterMs', where, { integer: false, min: 0 });
  expectNumber(record, 'deepErrorBody', where, { integer: true, min: 1, max: 10_000_000 });
  expectNumber(record, 'trickleMs', where, { integer: false, min: 0 });
  expectNumber(record, 'trickleBytes', where, { integer: true, min: 1 });
  expectNumber(record, 'keepAliveNewlines', where, { integer: true, min: 0, max: 100_000 });
  expectNumber(record, 'keepAliveMs', where, { integer: false, min: 0 });
  expectNumber(record, 'cutOffAfterBytes', where, { integer: true, min: 0 });
  if (record.modelRejected !== undefined && !WORDINGS.includes(record.modelRejected as string)) {
    throw new TypeError(`${where}.modelRejected must be one of ${WORDINGS.join(', ')}`);
  }
  validateRedirect(record.redirect, where);
  validateErrorInBody(record.errorInBody, where);
  validateStreamFault(record.stream, where);
  expectJson(record, 'usage', where);
  validateListing(record.listing, where);
  for (const key of ['model', 'path', 'body', 'contentType', 'message']) {
    if (record[key] !== undefined && typeof record[key] !== 'string') {
      throw new TypeError(`${where}.${key} must be a string`);
    }
  }
  for (const key of FLAGS) {
    if (record[key] !== undefined && typeof record[key] !== 'boolean') {
      throw new TypeError(`${where}.${key} must be a boolean`);
    }
  }
}

function validateRedirect(redirect: unknown, where: string): void {
  if (redirect === undefined) return;
  const record = redirect as Record<string, unknown> | null;
  if (record === null || typeof record !== 'object' || typeof record.location !== 'string') {
    throw new TypeError(`${where}.redirect must be {status?, location} with location a string`);
  }
  if (record.status !== undefined && !REDIRECTS.includes(record.status as number)) {
    throw new TypeError(`${where}.redirect.status must be one of ${REDIRECTS.join(', ')}`);
  }
}

function validateErrorInBody(errorInBody: unknown, where: string): void {
  if (errorInBody === undefined) return;
  const record = errorInBody as Record<string, unknown> | null;
  if (record === null || typeof record !== 'object' || Array.isArray(record)) {
    throw new TypeError(`${where}.errorInBody must be {code, message?, raw?, withChoices?}`);
  }
  expectNumber(record, 'code', `${where}.errorInBody`, { integer: true, min: 100, max: 599 });
  if (record.code === undefined) throw new TypeError(`${where}.errorInBody.code must be an HTTP status code`);
  for (const key of ['message', 'raw']) {
    if (record[key] !== undefined && typeof record[key] !== 'string') {
      throw new TypeError(`${where}.errorInBody.${key} must be a string`);
    }
  }
  if (record.withChoices !== undefined && typeof record.withChoices !== 'boolean') {
    throw new TypeError(`${where}.errorInBody.withChoices must be a boolean`);
  }
}

function validateListing(listing: unknown, where: string): void {
  if (listing === undefined) return;
  const at = `${where}.listing`;
  const record = listing as Record<string, unknown> | null;
  if (record === null || typeof record !== 'object' || Array.isArray(record)) {
    throw new TypeError(`${at} must be {pricing?, padding?, data?, nesting?}`);
  }
  for (const key of Object.keys(record)) {
    if (!['pricing', 'padding', 'data', 'nesting'].includes(key)) {
      throw new TypeError(`${at} has an unknown field '${key}'`);
    }
  }
  const pricing = record.pricing as Record<string, unknown> | null | undefined;
  if (pricing !== undefined) {
    const entries = pricing !== null && typeof pricing === 'object' ? Object.values(pricing) : [null];
    if (
      Array.isArray(pricing) ||
      entries.some((value) => value === null || typeof value !== 'object' || Array.isArray(value))
    ) {
      throw new TypeError(`${at}.pricing must be an object of pricing objects, keyed by listed model id`);
    }
    expectJson(record, 'pricing', at);
  }
  expectNumber(record, 'padding', at, { integer: true, min: 0, max: 10_000_000 });
  expectNumber(record, 'nesting', at, { integer: true, min: 1, max: 10_000_000 });
  expectJson(record, 'data', at);
}

const STREAM_NUMBERS = [
  'keepAlives',
  'keepAliveMs',
  'eventMs',
  'cutAfterEvents',
  'endAfterEvents',
  'stallAfterEvents',
  'malformedAt',
  'errorAt',
  'errorCode',
];
const STREAM_FLAGS = ['endless', 'noUsage', 'noDone', 'usageEveryChunk', 'duplicateUsage', 'errorEvent'];
const STREAM_OTHERS = ['leadingWhitespace', 'usage', 'afterDone'];

function validateStreamFault(stream: unknown, where: string): void {
  if (stream === undefined) return;
  const at = `${where}.stream`;
  if (stream === null || typeof stream !== 'object' || Array.isArray(stream)) {
    throw new TypeError(`${at} must be an object`);
  }
  const record = stream as Record<string, unknown>;
  for (const key of Object.keys(record)) {
    if (!STREAM_NUMBERS.includes(key) && !STREAM_FLAGS.includes(key) && !STREAM_OTHERS.includes(key)) {
      throw new TypeError(`${at} has an unknown field '${key}'`);
    }
  }
  for (const key of ['keepAlives', 'cutAfterEvents', 'endAfterEvents', 'stallAfterEvents']) {
    expectNumber(record, key, at, { integer: true, min: 0, max: 1_000_000 });
  }
  for (const key of ['keepAliveMs', 'eventMs']) expectNumber(record, key, at, { integer: false, min: 0 });
  for (const key of ['malformedAt', 'errorAt']) expectNumber(record, key, at, { integer: true, min: 1 });
  expectNumber(record, 'errorCode', at, { integer: true, min: 100, max: 599 });
  for (const key of STREAM_FLAGS) {
    if (record[key] !== undefined && typeof record[key] !== 'boolean') {
      throw new TypeError(`${at}.${key} must be a boolean`);
    }
  }
  const whitespace = record.leadingWhitespace;
  if (whitespace !== undefined && (typeof whitespace !== 'string' || whitespace.trim() !== '')) {
    throw new TypeError(`${at}.leadingWhitespace must be a string of whitespace`);
  }
  if (record.afterDone !== undefined && typeof record.afterDone !== 'string') {
    throw new TypeError(`${at}.afterDone must be a string`);
  }
  if (record.errorEvent === true && record.errorAt === undefined) {
    throw new TypeError(`${at}.errorEvent needs errorAt (the position of the error event)`);
  }
  expectJson(record, 'usage', at);
}

/** A `usage` replacement must be sendable as JSON (no cycle, BigInt or function). */
function expectJson(record: Record<string, unknown>, key: string, where: string): void {
  const value = record[key];
  if (value === undefined) return;
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch {
    text = undefined;
  }
  if (text === undefined) throw new TypeError(`${where}.${key} must be a JSON value`);
}

function expectNumber(
  record: Record<string, unknown>,
  key: string,
  where: string,
  range: { integer: boolean; min: number; max?: number },
): void {
  const value = record[key];
  if (value === undefined) return;
  const max = range.max ?? Number.MAX_SAFE_INTEGER;
  const ok =
    typeof value === 'number' &&
    Number.isFinite(value) &&
    (!range.integer || Number.isInteger(value)) &&
    value >= range.min &&
    value <= max;
  if (!ok) {
    const kind = range.integer ? 'an integer' : 'a number';
    const bounds = range.max === undefined ? `>= ${range.min}` : `from ${range.min} to ${range.max}`;
    throw new TypeError(`${where}.${key} must be ${kind} ${bounds}, got ${JSON.stringify(value)}`);
  }
}
