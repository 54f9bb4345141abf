import type { BudgetStore, ScopeCounters, ThresholdMarks } from './budget-store.js';
import { usdOf } from './nano-usd.js';
import { RecentMap } from './recent-map.js';
import type { StoredScope } from './scope-limits.js';
import { isoWindow } from './scope-windows.js';

/** What `onThreshold` is told: a scope's spend first reached `fraction` of its limit in a window. */
export interface BudgetThresholdEvent {
  /** The scope's path, e.g. `svc/acme`. */
  readonly scope: string;
  /** The threshold reached (0.8), not spent ÷ limit. */
  readonly fraction: number;
  /** The scope's spend in USD when the store saw it reached: settled costs plus unsettled worst cases. */
  readonly spentUsd: number;
  readonly limitUsd: number;
  /** The window (ISO instants, `end` exclusive), or null for a scope without one. */
  readonly window: { readonly start: string; readonly end: string } | null;
}

const DEFAULT_THRESHOLDS: readonly number[] = [0.8, 1];

/** Checks `thresholds` (fractions in (0, 1]); sorted, without repeats. */
export function checkThresholds(value: unknown): readonly number[] {
  if (value === undefined) return DEFAULT_THRESHOLDS;
  if (!Array.isArray(value)) throw new TypeError('thresholds must be an array of fractions, e.g. [0.8, 1]');
  for (const [index, fraction] of value.entries()) {
    if (!(typeof fraction === 'number' && Number.isFinite(fraction) && fraction > 0 && fraction <= 1)) {
      throw new RangeError(
        `thresholds[${index}] must be a fraction of a limit in (0, 1], got ${String(fraction)}`,
      );
    }
  }
  return [...new Set(value as number[])].sort((a, b) => a - b);
}

/**
 * Fires `onThreshold` once per scope, window and threshold, across every process sharing the
 * store: after each settlement, the store is asked (atomically, `markThresholds`) how many of the
 * scope's thresholds its spend has reached and how many were reached before, and records the
 * higher; only the call that raised the mark fires the thresholds between. This process remembers
 * each scope window it saw fully fired (the latest 10,000), so such a scope is not asked again.
 */
export class Thresholds {
  readonly #fractions: readonly number[];
  readonly #onThreshold: ((event: BudgetThresholdEvent) => void) | null;
  readonly #onWarning: (message: string) => void;
  /** Per scope key: how many thresholds this process knows were reached. */
  readonly #known = new RecentMap<number>(10_000);
  #warnedUnsupported = false;
  /** Checks under way, for `idle()`. */
  readonly #pending = new Set<Promise<void>>();

  constructor(
    fractions: readonly number[],
    onThreshold: ((event: BudgetThresholdEvent) => void) | null,
    onWarning: (message: string) => void,
  ) {
    this.#fractions = fractions;
    this.#onThreshold = onThreshold;
    this.#onWarning = onWarning;
  }

  /** Whether any threshold is watched (onThreshold and at least one fraction): else no check ever runs. */
  get watched(): boolean {
    return this.#onThreshold !== null && this.#fractions.length > 0;
  }

  /**
   * The levels to ask `store` for with a settlement in `scopes` (`settleAndMark`, one round trip), or null
   * when there is nothing to ask or the store cannot (then {@link Thresholds.check} after it).
   */
  levelsFor(store: BudgetStore, scopes: readonly StoredScope[]): (readonly number[] | null)[] | null {
    return store.settleAndMark === undefined ? null : this.#levelsOf(scopes);
  }

  /** The levels each scope is asked for (null: none, or all known reached); null when none is asked. */
  #levelsOf(scopes: readonly StoredScope[]): (readonly number[] | null)[] | null {
    if (!this.watched) return null;
    const levels = scopes.map((scope) =>
      scope.limitNanoUsd === null || (this.#known.get(scope.key) ?? 0) >= this.#fractions.length
        ? null
        : this.#fractions.map((fraction) => levelOf(fraction, scope.limitNanoUsd as number)),
    );
    return levels.every((level) => level === null) ? null : levels;
  }

  /** After a settlement in `scopes` (their paths): asks the store, fires what it says was newly reached. Never throws. */
  check(store: BudgetStore, scopes: readonly StoredScope[], paths: readonly string[]): void | Promise<void> {
    const levels = this.#levelsOf(scopes);
    if (levels === null) return;
    if (store.markThresholds === undefined) {
      if (!this.#warnedUnsupported) {
        this.#warnedUnsupported = true;
        this.#onWarning(
          'the budget store cannot record thresholds (no markThresholds): onThreshold is not called',
        );
      }
      return;
    }
    let marks: ThresholdMarks[] | Promise<ThresholdMarks[]>;
    try {
      marks = store.markThresholds(scopes, levels);
    } catch (error) {
      this.#failed(error);
      return;
    }
    if (!(marks instanceof Promise)) return this.fire(marks, scopes, paths);
    const checked: Promise<void> = marks.then(
      (answer) => this.fire(answer, scopes, paths),
      (error: unknown) => this.#failed(error),
    );
    this.#pending.add(checked);
    return checked.finally(() => this.#pending.delete(checked));
  }

  /**
   * After a grant: when the counters the store reported show a scope's spend at a threshold this process
   * does not know was reported (spend grown by leases that expired, with no settlement), asks the store
   * as after a settlement. Nothing to do without counters (the memory store's grants).
   */
  afterGrant(
    store: BudgetStore,
    scopes: readonly StoredScope[],
    paths: readonly string[],
    counters: readonly ScopeCounters[] | undefined,
  ): void {
    if (this.#onThreshold === null || counters === undefined) return;
    const due = scopes.some((scope, index) => {
      const known = this.#known.get(scope.key) ?? 0;
      const fraction = this.#fractions[known];
      const spent = counters[index]?.spentNanoUsd ?? 0;
      return (
        scope.limitNanoUsd !== null &&
        fraction !== undefined &&
        spent >= levelOf(fraction, scope.limitNanoUsd)
      );
    });
    if (due) void this.check(store, scopes, paths);
  }

  /** Resolves once the checks under way have fired what they found. */
  async idle(): Promise<void> {
    await Promise.all(this.#pending);
  }

  /** Fires what the store's marks (also from `settleAndMark`) say was newly reached. Never throws. */
  fire(marks: readonly ThresholdMarks[], scopes: readonly StoredScope[], paths: readonly string[]): void {
    for (const [index, mark] of marks.entries()) {
      const scope = scopes[index];
      if (scope === undefined || scope.limitNanoUsd === null) continue;
      this.#known.set(scope.key, Math.max(this.#known.get(scope.key) ?? 0, mark.to));
      for (let reached = mark.from; reached < mark.to; reached += 1) {
        const event: BudgetThresholdEvent = {
          scope: paths[index] ?? '',
          fraction: this.#fractions[reached] as number,
          spentUsd: usdOf(mark.spentNanoUsd),
          limitUsd: usdOf(scope.limitNanoUsd),
          window: isoWindow(scope.window),
        };
        try {
          const returned: unknown = (this.#onThreshold as (event: BudgetThresholdEvent) => void)(event);
          // A promise it returns is not awaited, but its rejection is caught.
          if (returned instanceof Promise) returned.catch((error: unknown) => this.#threw(error));
        } catch (error) {
          this.#threw(error);
        }
      }
    }
  }

  #threw(error: unknown): void {
    this.#onWarning(
      `onThreshold threw (${error instanceof Error ? error.message : String(error)}); the call goes on`,
    );
  }

  #failed(error: unknown): void {
    this.#onWarning(
      `the budget store could not record a threshold (${error instanceof Error ? error.message : String(error)}); it is checked again after the next settlement`,
    );
  }
}

/** The spend, in whole nano-dollars, at which `fraction` of `limit` is reached (exact, by integers). */
function levelOf(fraction: number, limit: number): number {
  const millionths = BigInt(Math.round(fraction * 1_000_000));
  const product = millionths * BigInt(limit);
  const level = product / 1_000_000n + (product % 1_000_000n === 0n ? 0n : 1n);
  return Number(level);
}
