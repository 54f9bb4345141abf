import { priceOf } from '@switchboard/prices';
import { NO_ROLE } from './call-meter.js';
import { type CheckedJournalLine, checkJournalLine } from './check-journal-line.js';
import { CostliestCalls, type CostlyCall } from './costliest-calls.js';
import { endpointLabel } from './endpoint-label.js';
import type { JournalLine } from './journal-line.js';
import { NanoSum } from './nano-usd.js';
import { type PriceAgeFigures, PriceAgeTally } from './price-age-tally.js';
import { parseJournalLine } from './read-journal.js';
import { type Reconciliation, ReconciliationTally } from './reconciliation.js';
import { isSettlementKind, settlementOf } from './settlement.js';
import { breakdownOf, cacheHitRatio, OTHER_GROUP, Tally, type TallyFigures, tallyOf } from './tally.js';
import { addError, addRoleCost, type Bucket, TimeBuckets } from './time-buckets.js';
import { usageTokens } from './usage-tokens.js';

/** Options of {@link ReportAccumulator}. */
export interface ReportOptions {
  /** Only calls at or after this time (the record's `at`). */
  readonly since?: Date | string | number;
  /** Only calls before this time. */
  readonly until?: Date | string | number;
  /** Line numbers of skipped lines kept for the report (the count is always exact); default 100. */
  readonly maxIssueLines?: number;
  /** A call priced from an entry checked more than this many days before it counts as stale; default 90. */
  readonly staleAfterDays?: number;
  /** The drift from the provider's own figures past which a model is named (a share); default 0.01. */
  readonly driftThreshold?: number;
}

/** One bar of the charts over time. */
export interface SpendBucket {
  /** ISO start of the bucket. */
  readonly start: string;
  readonly costUsd: number;
  /** The bucket's cost, an exact decimal with nine places. */
  readonly cost: string;
  readonly calls: number;
  readonly failures: number;
  /** Cost (exact decimals) by role, for the roles of `spend.roles`; the rest under `(others)`. */
  readonly byRole: Readonly<Record<string, string>>;
  /** Failed calls by error kind; kinds past the bucket's first 12 under `(others)`. */
  readonly errors: Readonly<Record<string, number>>;
}

/** Everything a report says about a run, as plain data (`--json`). */
export interface ReportFigures {
  /** ISO time of the first and the last call counted, or null with none. */
  readonly from: string | null;
  readonly to: string | null;
  readonly totals: TallyFigures;
  /** By role, model and endpoint: the dearest first; past 1,000 names, the rest under `(others)`. */
  readonly byRole: Readonly<Record<string, TallyFigures>>;
  readonly byModel: Readonly<Record<string, TallyFigures>>;
  readonly byEndpoint: Readonly<Record<string, TallyFigures>>;
  readonly cache: {
    readonly hitTokens: number;
    readonly inputTokens: number;
    /** hitTokens / inputTokens, or null with no prompt tokens. */
    readonly ratio: number | null;
    /**
     * USD the cache saved: per call, cache-hit tokens × (inputPerM − cacheHitPerM) / 1e6 at the
     * flat prices of `priceOf(pricedAs ?? model)` in the current price table, rounded to nano-dollars.
     */
    readonly savedUsd: number;
    /** The same as an exact decimal with nine places. */
    readonly saved: string;
    /** Cache-hit tokens of models the price table does not know (not in savedUsd). */
    readonly unpricedHitTokens: number;
  };
  /** Failed calls by error kind. */
  readonly errors: Readonly<Record<string, { readonly calls: number; readonly degradations: number }>>;
  /** Failed calls that were degradations, not verdicts. */
  readonly degradations: number;
  /**
   * Spend, calls and errors over time: at most 60 buckets, their size (`bucket`, in
   * words, and `bucketMs`) chosen from the range of the calls' times; `roles` are
   * the dearest roles (at most 6) the buckets split their cost by.
   */
  readonly spend: {
    readonly bucket: string;
    readonly bucketMs: number;
    readonly roles: readonly string[];
    readonly buckets: readonly SpendBucket[];
  };
  /** The dearest calls (at most 20), dearest first. */
  readonly costliest: readonly CostlyCall[];
  /** Lines skipped: their count, and the numbers of the first ones. */
  readonly skipped: { readonly count: number; readonly lines: readonly number[] };
  /**
   * Lines counted that say the journal wrote some of the call's figures other than the
   * record had them (`clamped`, `usageError` or `recordError`): their count, and the
   * numbers of the first ones.
   */
  readonly clamped: { readonly count: number; readonly lines: readonly number[] };
  /** Lines outside `since`/`until`. */
  readonly filteredOut: number;
  /** How old the prices the calls were costed with were, at each call's time. */
  readonly priceAge: PriceAgeFigures;
  /**
   * The local figures beside the provider's own (the gateway's `usage.cost`) for the calls
   * that had both, in total and by model, and the models whose drift passes the threshold.
   */
  readonly reconciliation: Reconciliation;
  /**
   * Price changes announced for the report's models, still to come when the report was made (from the
   * prices in force: the shipped table and the configuration; `switchboard report` fills it in).
   */
  readonly announced?: readonly ReportAnnouncedPrice[];
}

/** A dated price change of a model that is still to come: from when, and who said so. */
export interface ReportAnnouncedPrice {
  readonly model: string;
  /** When the change takes effect (an ISO instant). */
  readonly effectiveFrom: string;
  /** Where the announcement was read (the entry's `source`), or null. */
  readonly source: string | null;
}

/** Most roles the spend-over-time chart stacks; the others are summed together. */
const STACKED_ROLES = 6;

/**
 * Adds up journal lines, one at a time, in memory that does not grow with the
 * lines (at most 60 time buckets, 1,000 names per breakdown, 20 costliest calls):
 * `add(line)` each, then `result()`. Every line is checked first; one that
 * fails is counted as skipped, never in the figures.
 */
export class ReportAccumulator {
  readonly #since: number;
  readonly #until: number;
  readonly #maxIssueLines: number;
  readonly #totals = new Tally();
  readonly #byRole = new Map<string, Tally>();
  readonly #byModel = new Map<string, Tally>();
  readonly #byEndpoint = new Map<string, Tally>();
  readonly #errors = new Map<string, { calls: number; degradations: number }>();
  readonly #time = new TimeBuckets();
  readonly #costliest = new CostliestCalls();
  readonly #skippedLines: number[] = [];
  readonly #clampedLines: number[] = [];
  #clamped = 0;
  readonly #saved = new NanoSum();
  #skipped = 0;
  #filteredOut = 0;
  #lineNumber = 0;
  #first = Number.POSITIVE_INFINITY;
  #last = Number.NEGATIVE_INFINITY;
  #unpricedHitTokens = 0;
  readonly #priceAge: PriceAgeTally;
  readonly #reconciliation: ReconciliationTally;

  constructor(options: ReportOptions = {}) {
    this.#since = timeOption(options.since, 'since') ?? Number.NEGATIVE_INFINITY;
    this.#until = timeOption(options.until, 'until') ?? Number.POSITIVE_INFINITY;
    this.#maxIssueLines = options.maxIssueLines ?? 100;
    this.#priceAge = new PriceAgeTally(options.staleAfterDays);
    this.#reconciliation = new ReconciliationTally(options.driftThreshold);
  }

  /**
   * Adds one journal line: its text (as read from the file), a parsed line, or a
   * line {@link checkJournalLine} has checked. `lineNumber` names it when it is
   * skipped; default: one past the last line added.
   */
  add(line: string | JournalLine | CheckedJournalLine, lineNumber = this.#lineNumber + 1): void {
    this.#lineNumber = lineNumber;
    if (typeof line === 'string' && line.trim() === '') return;
    const checked = checkedOf(line, lineNumber);
    if (checked === null) this.skip(lineNumber);
    else this.addChecked(checked, lineNumber);
  }

  /** Adds a line that passed {@link checkJournalLine}. */
  addChecked(checked: CheckedJournalLine, lineNumber = this.#lineNumber + 1): void {
    this.#lineNumber = lineNumber;
    if (checked.at < this.#since || checked.at >= this.#until) this.#filteredOut += 1;
    else this.#count(checked, lineNumber);
  }

  /** Counts a line that could not be trusted (named by number in the report). */
  skip(lineNumber: number): void {
    this.#lineNumber = lineNumber;
    this.#skipped += 1;
    if (this.#skippedLines.length < this.#maxIssueLines) this.#skippedLines.push(lineNumber);
  }

  /** The figures of every line added so far. */
  result(): ReportFigures {
    const calls = this.#totals.calls;
    const byRole = breakdownOf(this.#byRole);
    const roles = Object.keys(byRole)
      .filter((role) => role !== OTHER_GROUP)
      .slice(0, STACKED_ROLES);
    return Object.freeze({
      from: calls > 0 ? new Date(this.#first).toISOString() : null,
      to: calls > 0 ? new Date(this.#last).toISOString() : null,
      totals: this.#totals.figures(),
      byRole,
      byModel: breakdownOf(this.#byModel),
      byEndpoint: breakdownOf(this.#byEndpoint),
      cache: Object.freeze({
        hitTokens: this.#totals.cacheHitTokens,
        inputTokens: this.#totals.inputTokens,
        ratio: cacheHitRatio(this.#totals),
        savedUsd: this.#saved.usd,
        saved: this.#saved.decimal,
        unpricedHitTokens: this.#unpricedHitTokens,
      }),
      errors: Object.freeze(
        Object.fromEntries(
          [...this.#errors]
            .sort(([, a], [, b]) => b.calls - a.calls)
            .map(([kind, figures]) => [kind, Object.freeze({ ...figures })]),
        ),
      ),
      degradations: this.#totals.degradations,
      spend: Object.freeze({
        bucket: this.#time.label,
        bucketMs: this.#time.size,
        roles,
        buckets: this.#time.all().map(([start, bucket]) => spendBucket(start, bucket, roles)),
      }),
      costliest: this.#costliest.calls(),
      skipped: Object.freeze({ count: this.#skipped, lines: [...this.#skippedLines] }),
      clamped: Object.freeze({ count: this.#clamped, lines: [...this.#clampedLines] }),
      filteredOut: this.#filteredOut,
      priceAge: this.#priceAge.figures(),
      reconciliation: this.#reconciliation.figures(),
    });
  }

  #count(checked: CheckedJournalLine, lineNumber: number): void {
    const { line: record, at, costNanoUsd, settlement } = checked;
    const tokens = usageTokens(record.usage);
    const role = record.role ?? NO_ROLE;
    this.#totals.add(record, tokens, settlement);
    tallyOf(this.#byRole, role).add(record, tokens, settlement);
    tallyOf(this.#byModel, record.model).add(record, tokens, settlement);
    tallyOf(this.#byEndpoint, endpointLabel(record.endpoint)).add(record, tokens, settlement);
    this.#priceAge.add(record, at);
    this.#reconciliation.add(record, settlement);
    if (isClamped(record)) {
      this.#clamped += 1;
      if (this.#clampedLines.length < this.#maxIssueLines) this.#clampedLines.push(lineNumber);
    }
    const bucket = this.#time.bucketAt(at);
    bucket.calls += 1;
    if (costNanoUsd !== null) {
      bucket.cost.add(costNanoUsd);
      addRoleCost(bucket, role, costNanoUsd);
      this.#costliest.offer(costNanoUsd, () => ({
        at: record.at,
        line: lineNumber,
        model: record.model,
        role: record.role ?? null,
        outcome: record.error ? record.error.kind : 'ok',
        settlement,
        costNanoUsd,
      }));
    }
    if (record.error) {
      const kind = record.error.kind;
      // Past 1,000 kinds (only a hostile file has them), the rest count together.
      const key = this.#errors.has(kind) || this.#errors.size < 1000 ? kind : OTHER_GROUP;
      const figures = this.#errors.get(key) ?? { calls: 0, degradations: 0 };
      figures.calls += 1;
      if (record.error.degradation) figures.degradations += 1;
      this.#errors.set(key, figures);
      addError(bucket, kind);
    }
    if (tokens.cacheRead > 0) {
      const prices = priceOf(record.pricedAs ?? record.model);
      if (prices === null) this.#unpricedHitTokens += tokens.cacheRead;
      else
        this.#saved.add(
          Math.max(0, Math.round(tokens.cacheRead * (prices.inputPerM - prices.cacheHitPerM) * 1000)),
        );
    }
    if (at < this.#first) this.#first = at;
    if (at > this.#last) this.#last = at;
  }
}

function spendBucket(start: number, bucket: Bucket, roles: readonly string[]): SpendBucket {
  const byRole: Record<string, string> = {};
  const others = new NanoSum();
  others.addSum(bucket.otherRoles);
  for (const [role, sum] of bucket.roles) {
    if (roles.includes(role)) byRole[role] = sum.decimal;
    else others.addSum(sum);
  }
  if (others.nanoUsd > 0) byRole[OTHER_GROUP] = others.decimal;
  const errors: Record<string, number> = Object.fromEntries(bucket.errors);
  if (bucket.otherErrors > 0) errors[OTHER_GROUP] = bucket.otherErrors;
  return Object.freeze({
    start: new Date(start).toISOString(),
    costUsd: bucket.cost.usd,
    cost: bucket.cost.decimal,
    calls: bucket.calls,
    failures: bucket.failures,
    byRole: Object.freeze(byRole),
    errors: Object.freeze(errors),
  });
}

// Whether the journal says it wrote some of the line's figures other than the record had them.
function isClamped(line: JournalLine): boolean {
  return (
    (typeof line.clamped === 'object' && line.clamped !== null) ||
    typeof line.usageError === 'string' ||
    typeof line.recordError === 'string'
  );
}

function checkedOf(
  line: string | JournalLine | CheckedJournalLine,
  lineNumber: number,
): CheckedJournalLine | null {
  if (typeof line === 'string') {
    const parsed = parseJournalLine(line, lineNumber);
    return 'message' in parsed ? null : parsed;
  }
  if (
    typeof line === 'object' &&
    line !== null &&
    'line' in line &&
    'at' in line &&
    typeof line.at === 'number'
  ) {
    const checked = line as CheckedJournalLine;
    // A checked line made before settlements were: derived from its line.
    return isSettlementKind(checked.settlement)
      ? checked
      : { ...checked, settlement: settlementOf(checked.line) };
  }
  const checked = checkJournalLine(line);
  return typeof checked === 'string' ? null : checked;
}

function timeOption(value: Date | string | number | undefined, name: string): number | undefined {
  if (value === undefined) return undefined;
  const time =
    value instanceof Date ? value.getTime() : typeof value === 'number' ? value : Date.parse(value);
  if (!Number.isFinite(time))
    throw new RangeError(`options.${name} must be a date, an ISO time or epoch milliseconds`);
  return time;
}
