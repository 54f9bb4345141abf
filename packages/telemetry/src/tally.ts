import { costNanoUsdOf } from './cost-nano-usd-of.js';
import { NanoSum } from './nano-usd.js';
import { type SettlementKind, settlementOf } from './settlement.js';
import type { TelemetryRecord } from './telemetry-record.js';
import type { UsageTokens } from './usage-tokens.js';

/** Plain figures for a group of calls. */
export interface TallyFigures {
  /** Raw calls. */
  readonly calls: number;
  /** Calls that ended in an error. */
  readonly failures: number;
  /** Failed calls that were degradations (e.g. a model the platform rejected), not verdicts. */
  readonly degradations: number;
  /** Requests that reached the wire, retries included (a call refused before sending has none). */
  readonly attempts: number;
  /** USD of the priced calls: `costNanoUsd / 1e9`. */
  readonly costUsd: number;
  /** The same, in integer nano-dollars, summed exactly. */
  readonly costNanoUsd: number;
  /** The same as an exact decimal with nine places (`0.000210000`). */
  readonly cost: string;
  /**
   * Calls of a model with no price: a reply came back (settled `exact` or `estimate`) and
   * nothing priced it, so their cost is not in `cost`.
   */
  readonly unpricedCalls: number;
  /**
   * Calls refused before they cost anything (settled `none`: a budget refused them before
   * sending, the endpoint answered with an error status, or they never reached it): nothing
   * to bill, whether or not their model has a price. Not unpriced calls.
   */
  readonly refusedCalls: number;
  /**
   * Calls whose cost is an estimate (settlement `estimate`: output arrived without a
   * trusted final usage): their cost, part of `cost`, is a lower bound of what the
   * provider bills.
   */
  readonly estimatedCalls: number;
  /** The part of `costUsd` that is estimated (a lower bound). */
  readonly estimatedCostUsd: number;
  /** The same, in integer nano-dollars. */
  readonly estimatedCostNanoUsd: number;
  /** The same as an exact decimal with nine places. */
  readonly estimatedCost: string;
  /**
   * Calls of unknown cost (settlement `unsettled`: they may have reached the provider and
   * nothing says what they cost): not in `cost`; a budget counted each at its worst case.
   */
  readonly unsettledCalls: number;
  /** Prompt tokens, cache reads included. */
  readonly inputTokens: number;
  /** Prompt tokens served from the provider's cache. */
  readonly cacheHitTokens: number;
  readonly outputTokens: number;
  readonly reasoningTokens: number;
  /** Milliseconds of all calls, end to end. */
  readonly durationMs: number;
}

/** A mutable running total of {@link TallyFigures}: O(1) per call. */
export class Tally {
  calls = 0;
  failures = 0;
  degradations = 0;
  attempts = 0;
  readonly cost = new NanoSum();
  unpricedCalls = 0;
  refusedCalls = 0;
  estimatedCalls = 0;
  readonly estimatedCost = new NanoSum();
  unsettledCalls = 0;
  inputTokens = 0;
  cacheHitTokens = 0;
  outputTokens = 0;
  reasoningTokens = 0;
  durationMs = 0;

  /**
   * Counts one call, its cost in integer nano-dollars (default: {@link costNanoUsdOf} of the
   * record), under its settlement (default: the record's own, or derived from its fields).
   */
  add(
    record: TelemetryRecord,
    tokens: UsageTokens,
    settlement: SettlementKind = settlementOf(record),
    costNanoUsd: number | null = costNanoUsdOf(record),
  ): void {
    this.calls += 1;
    const error = record.error;
    if (error) {
      this.failures += 1;
      if (error.degradation) this.degradations += 1;
    }
    this.attempts += finite(record.attempts);
    if (costNanoUsd !== null) this.cost.add(costNanoUsd);
    // A call without a cost is counted once, by why: refused (nothing to bill), unsettled
    // (unknown, below), or a reply of a model with no price.
    else if (settlement === 'none') this.refusedCalls += 1;
    else if (settlement !== 'unsettled') this.unpricedCalls += 1;
    if (settlement === 'estimate') {
      this.estimatedCalls += 1;
      if (costNanoUsd !== null) this.estimatedCost.add(costNanoUsd);
    } else if (settlement === 'unsettled') this.unsettledCalls += 1;
    this.inputTokens += tokens.input;
    this.cacheHitTokens += tokens.cacheRead;
    this.outputTokens += tokens.output;
    this.reasoningTokens += tokens.reasoning;
    this.durationMs += finite(record.durationMs);
  }

  /** A frozen plain copy of the figures. */
  figures(): TallyFigures {
    return Object.freeze({
      calls: this.calls,
      failures: this.failures,
      degradations: this.degradations,
      attempts: this.attempts,
      costUsd: this.cost.usd,
      costNanoUsd: this.cost.nanoUsd,
      cost: this.cost.decimal,
      unpricedCalls: this.unpricedCalls,
      refusedCalls: this.refusedCalls,
      estimatedCalls: this.estimatedCalls,
      estimatedCostUsd: this.estimatedCost.usd,
      estimatedCostNanoUsd: this.estimatedCost.nanoUsd,
      estimatedCost: this.estimatedCost.decimal,
      unsettledCalls: this.unsettledCalls,
      inputTokens: this.inputTokens,
      cacheHitTokens: this.cacheHitTokens,
      outputTokens: this.outputTokens,
      reasoningTokens: this.reasoningTokens,
      durationMs: this.durationMs,
    });
  }
}

/** Most groups a breakdown keeps by name; calls of further names count under {@link OTHER_GROUP}. */
const MAX_GROUPS = 1000;
/** The group of the names past {@link MAX_GROUPS}. */
export const OTHER_GROUP = '(others)';

/** The tally of `key` in `groups`, created on first use (past MAX_GROUPS names: the others' tally). */
export function tallyOf(groups: Map<string, Tally>, key: string): Tally {
  let tally = groups.get(key);
  if (tally === undefined) {
    const name = groups.size >= MAX_GROUPS ? OTHER_GROUP : key;
    tally = groups.get(name) ?? new Tally();
    groups.set(name, tally);
  }
  return tally;
}

/** Each group's figures, by key, the dearest first (then the busiest, then by name). */
export function breakdownOf(groups: Map<string, Tally>): Record<string, TallyFigures> {
  const entries = [...groups].sort(
    ([nameA, a], [nameB, b]) =>
      b.cost.nanoUsd - a.cost.nanoUsd || b.calls - a.calls || (nameA < nameB ? -1 : nameA > nameB ? 1 : 0),
  );
  // fromEntries defines own properties: a group named __proto__ stays a group.
  return Object.freeze(Object.fromEntries(entries.map(([key, tally]) => [key, tally.figures()])));
}

/** The share of prompt tokens served from the cache, or null with no prompt tokens. */
export function cacheHitRatio(tally: Tally): number | null {
  return tally.inputTokens > 0 ? tally.cacheHitTokens / tally.inputTokens : null;
}

function finite(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : 0;
}
