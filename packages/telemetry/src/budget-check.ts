import { nanoUsdOf } from '@switchboard/prices';
import type { CheckedJournalLine } from './check-journal-line.js';
import { NanoSum } from './nano-usd.js';
import type { InvalidBudget, OverspentScope } from './verify-findings.js';

type Fields = Record<string, unknown>;

/** Most scopes, and most (run, scope) limits, followed; further ones are not checked. */
const MAX_SCOPES = 10_000;
const MAX_RUN_LIMITS = 100_000;

/**
 * What the check of the journal's budget scopes found (`JournalVerification.budgets`).
 *
 * @inline
 */
export interface BudgetFigures {
  readonly scopes: number;
  readonly overspent: readonly OverspentScope[];
  readonly invalidCount: number;
  readonly invalid: readonly InvalidBudget[];
  readonly changedCount: number;
  readonly changed: readonly InvalidBudget[];
  readonly unchargedCount: number;
  readonly uncharged: readonly InvalidBudget[];
}

/** A writer's run (one process's journal, numbered from 1): the scopes its calls were charged to. */
interface RunBudgets {
  /** A scope one of its sent calls was charged to, and that line. */
  charged: { readonly scope: string; readonly line: number } | null;
  uncharged: number;
  readonly unchargedLines: number[];
}

/**
 * Sums each budget scope's settled spend over a journal's lines and checks it against the
 * scope's limit; names the entries whose scope or limit no budget can have, a scope whose limit
 * changes between lines of one process (a budget's limits are fixed while it runs), and a sent
 * call with no scope among a process's calls that were charged to one (its cost is checked
 * against no limit).
 */
export class BudgetCheck {
  readonly #maxListed: number;
  readonly #scopes = new Map<string, { limit: number; spent: NanoSum; over: number | null }>();
  #invalidCount = 0;
  readonly #invalid: InvalidBudget[] = [];
  readonly #limits = new Map<string, { readonly limit: unknown; readonly line: number }>();
  #changedCount = 0;
  readonly #changed: InvalidBudget[] = [];
  readonly #runs = new Map<string, RunBudgets>();

  constructor(maxListed: number) {
    this.#maxListed = maxListed;
  }

  /** Checks one line's budget entries; `run` is its writer's run (null for a line without one). */
  add(line: Fields, checked: CheckedJournalLine, lineNumber: number, run: string | null): void {
    const budgets = budgetsOf(line);
    if (run !== null) this.#follow(run, line, budgets, lineNumber);
    for (const budget of budgets) {
      const scope = budget.scope;
      const limit = budget.limitUsd;
      // No limit (null, or none written): nothing to check the spend against.
      const why = limit === null || limit === undefined ? null : invalidBudget(scope, limit);
      if (why === null && run !== null && typeof scope === 'string')
        this.#sameLimit(run, scope, limit, lineNumber);
      if (limit === null || limit === undefined) continue;
      if (why !== null) {
        this.#invalidCount += 1;
        if (this.#invalid.length < this.#maxListed)
          this.#invalid.push({ line: lineNumber, scope: typeof scope === 'string' ? scope : null, why });
        continue;
      }
      if (typeof scope !== 'string' || typeof limit !== 'number') continue;
      let tally = this.#scopes.get(scope);
      if (tally === undefined) {
        if (this.#scopes.size >= MAX_SCOPES) continue;
        tally = { limit: nanoUsdOf(limit), spent: new NanoSum(), over: null };
        this.#scopes.set(scope, tally);
      }
      // Settled spend: what exact and estimated calls cost (an unsettled call has no figure).
      if (checked.costNanoUsd !== null) tally.spent.add(checked.costNanoUsd);
      if (tally.over === null && tally.spent.nanoUsd > tally.limit) tally.over = lineNumber;
    }
  }

  /** What was found. */
  result(): BudgetFigures {
    const overspent = [...this.#scopes]
      .filter(([, tally]) => tally.over !== null)
      .map(([scope, tally]) => ({
        scope,
        limitNanoUsd: tally.limit,
        spentNanoUsd: tally.spent.nanoUsd,
        line: tally.over as number,
      }));
    let unchargedCount = 0;
    const uncharged: InvalidBudget[] = [];
    for (const budgets of this.#runs.values()) {
      const charged = budgets.charged;
      if (charged === null || budgets.uncharged === 0) continue;
      unchargedCount += budgets.uncharged;
      for (const line of budgets.unchargedLines)
        uncharged.push({
          line,
          scope: charged.scope,
          why: `a sent call charged to no budget scope, where the same process's calls were charged to ${JSON.stringify(charged.scope)} (line ${charged.line}): its cost is checked against no limit`,
        });
    }
    uncharged.sort((one, two) => one.line - two.line);
    return Object.freeze({
      scopes: this.#scopes.size,
      overspent: Object.freeze(overspent),
      invalidCount: this.#invalidCount,
      invalid: Object.freeze([...this.#invalid]),
      changedCount: this.#changedCount,
      changed: Object.freeze([...this.#changed]),
      unchargedCount,
      uncharged: Object.freeze(uncharged.slice(0, this.#maxListed)),
    });
  }

  // A sent call (one that went on the wire) of a process whose other sent calls were charged.
  #follow(run: string, line: Fields, budgets: readonly Fields[], lineNumber: number): void {
    if (typeof line.attempts === 'number' && line.attempts === 0) return;
    let budgetsOfRun = this.#runs.get(run);
    if (budgetsOfRun === undefined) {
      if (this.#runs.size >= MAX_RUN_LIMITS) return;
      budgetsOfRun = { charged: null, uncharged: 0, unchargedLines: [] };
      this.#runs.set(run, budgetsOfRun);
    }
    if (budgets.length > 0) {
      const scope = budgets.find((budget) => typeof budget.scope === 'string')?.scope;
      if (typeof scope === 'string') budgetsOfRun.charged ??= { scope, line: lineNumber };
      return;
    }
    budgetsOfRun.uncharged += 1;
    if (budgetsOfRun.unchargedLines.length < this.#maxListed) budgetsOfRun.unchargedLines.push(lineNumber);
  }

  // A scope's limit is fixed while its budget runs: every line of one run names the same.
  #sameLimit(run: string, scope: string, limit: unknown, lineNumber: number): void {
    const key = `${run}\u0000${scope}`;
    const first = this.#limits.get(key);
    if (first === undefined) {
      if (this.#limits.size < MAX_RUN_LIMITS)
        this.#limits.set(key, { limit: limit ?? null, line: lineNumber });
      return;
    }
    if (Object.is(first.limit, limit ?? null)) return;
    this.#changedCount += 1;
    if (this.#changed.length < this.#maxListed)
      this.#changed.push({
        line: lineNumber,
        scope,
        why: `budget scope ${JSON.stringify(scope)}: limitUsd ${shortJson(limit ?? null)} here, ${shortJson(first.limit)} on line ${first.line} of the same process: a scope's limit does not change while its budget runs, so one of them was changed`,
      });
  }
}

/**
 * The budget scopes a line's call went through: its `budgets` (a list) or `budget` (one),
 * each `{ scope, limitUsd }`, on the line or under its `extra` (a journal's annotation).
 */
function budgetsOf(line: Fields): Fields[] {
  const found: Fields[] = [];
  for (const holder of [line, line.extra]) {
    if (typeof holder !== 'object' || holder === null) continue;
    const { budget, budgets } = holder as Fields;
    if (typeof budget === 'object' && budget !== null && !Array.isArray(budget)) found.push(budget as Fields);
    if (Array.isArray(budgets))
      for (const entry of budgets.slice(0, 16))
        if (typeof entry === 'object' && entry !== null) found.push(entry as Fields);
  }
  return found;
}

// The most nanoUsdOf can count exactly: Number.MAX_SAFE_INTEGER nano-dollars, about 9 million USD.
const MAX_LIMIT_USD = Number.MAX_SAFE_INTEGER / 1e9;

/** Why a budget entry's scope or limit is not one a budget can have, or null when both are. */
function invalidBudget(scope: unknown, limit: unknown): string | null {
  if (typeof scope !== 'string' || scope === '')
    return `a budget entry without a scope name (scope ${shortJson(scope)})`;
  if (typeof limit === 'number' && limit >= 0 && limit <= MAX_LIMIT_USD) return null;
  return `budget scope ${JSON.stringify(scope)}: limitUsd ${shortJson(limit)} is not a limit (expected null or a number of USD from 0 to ${Math.floor(MAX_LIMIT_USD).toLocaleString('en-US')}), so its spend cannot be checked`;
}

/** A value as JSON writes it (a number as JavaScript does: 1e+308), cut to 40 characters. */
function shortJson(value: unknown): string {
  let text: string;
  try {
    text = typeof value === 'number' ? String(value) : (JSON.stringify(value) ?? String(value));
  } catch {
    text = typeof value;
  }
  return text.length > 40 ? `${text.slice(0, 40)}…` : text;
}
