import { usdOfNano } from '@switchboard/prices';
import { costNanoUsdOf } from './cost-nano-usd-of.js';
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
  /** Attempts, retries included. */
  readonly attempts: number;
  /** USD of the priced calls, summed exactly (`costNanoUsd / 1e9`). */
  readonly costUsd: number;
  /** The exact sum of the priced calls' costs, in whole nano-dollars (1e-9 USD). */
  readonly costNanoUsd: number;
  /** Calls nothing priced. */
  readonly unpricedCalls: number;
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
  costNanoUsd = 0;
  unpricedCalls = 0;
  inputTokens = 0;
  cacheHitTokens = 0;
  outputTokens = 0;
  reasoningTokens = 0;
  durationMs = 0;

  /** Counts one call. */
  add(record: TelemetryRecord, tokens: UsageTokens): void {
    this.calls += 1;
    const error = record.error;
    if (error) {
      this.failures += 1;
      if (error.degradation) this.degradations += 1;
    }
    this.attempts += finite(record.attempts);
    // Integer nano-dollars, as the adapter's running total: the sums agree exactly, in any order.
    const nano = costNanoUsdOf(record);
    if (nano !== null) this.costNanoUsd += nano;
    else this.unpricedCalls += 1;
    this.inputTokens += tokens.input;
    this.cacheHitTokens += tokens.cacheRead;
    this.outputTokens += tokens.output;
    this.reasoningTokens += tokens.reasoning;
    this.durationMs += finite(record.durationMs);
  }

  /** USD of the priced calls, summed exactly. */
  get costUsd(): number {
    return usdOfNano(this.costNanoUsd);
  }

  /** A frozen plain copy of the figures. */
  figures(): TallyFigures {
    return Object.freeze({
      calls: this.calls,
      failures: this.failures,
      degradations: this.degradations,
      attempts: this.attempts,
      costUsd: this.costUsd,
      costNanoUsd: this.costNanoUsd,
      unpricedCalls: this.unpricedCalls,
      inputTokens: this.inputTokens,
      cacheHitTokens: this.cacheHitTokens,
      outputTokens: this.outputTokens,
      reasoningTokens: this.reasoningTokens,
      durationMs: this.durationMs,
    });
  }
}

/** The tally of `key` in `groups`, created on first use. */
export function tallyOf(groups: Map<string, Tally>, key: string): Tally {
  let tally = groups.get(key);
  if (tally === undefined) {
    tally = new Tally();
    groups.set(key, tally);
  }
  return tally;
}

/** Each group's figures, by key, the dearest first (then the busiest, then by name). */
export function breakdownOf(groups: Map<string, Tally>): Record<string, TallyFigures> {
  const entries = [...groups].sort(
    ([nameA, a], [nameB, b]) =>
      b.costNanoUsd - a.costNanoUsd || b.calls - a.calls || nameA.localeCompare(nameB),
  );
  return Object.freeze(Object.fromEntries(entries.map(([key, tally]) => [key, tally.figures()])));
}

/** The share of prompt tokens served from the cache, or null with no prompt tokens. */
export function cacheHitRatio(tally: Tally): number | null {
  return tally.inputTokens > 0 ? tally.cacheHitTokens / tally.inputTokens : null;
}

function finite(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : 0;
}
