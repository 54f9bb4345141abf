import type { FaultPlan, FaultRule } from './fault-rule.js';

/** What a fault rule is matched against. */
export interface FaultTarget {
  readonly number: number;
  readonly path: string;
  readonly models: readonly string[];
}

const SELECTORS = ['requests', 'model', 'path', 'times'] as const;
const FLAGS = ['reset', 'emptyBody', 'emptyContent', 'noChoices', 'truncate'] as const;
const EFFECTS = ['delayMs', 'body', 'status', ...FLAGS] as const;
const KNOWN = new Set<string>([
  ...SELECTORS,
  ...EFFECTS,
  'contentType',
  'message',
  'retryAfter',
  'retryAfterMs',
]);

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
  if (rule.path !== undefined && rule.path !== target.path) return false;
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
  if (!EFFECTS.some((key) => record[key] !== undefined && record[key] !== false)) {
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
  expectNumber(record, 'retryAfter', where, { integer: false, min: 0 });
  expectNumber(record, 'retryAfterMs', where, { integer: false, min: 0 });
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
