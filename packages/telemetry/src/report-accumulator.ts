import { priceOf } from '@switchboard/prices';
import { NO_ROLE } from './call-meter.js';
import { endpointLabel } from './endpoint-label.js';
import type { JournalLine } from './journal-line.js';
import { parseJournalLine } from './read-journal.js';
import { breakdownOf, cacheHitRatio, Tally, type TallyFigures, tallyOf } from './tally.js';
import { usageTokens } from './usage-tokens.js';

/** Options of {@link ReportAccumulator}. */
export interface ReportOptions {
  /** Only calls at or after this time (the record's `at`). */
  readonly since?: Date | string | number;
  /** Only calls before this time. */
  readonly until?: Date | string | number;
  /** Line numbers of malformed lines kept for the report (the count is always exact); default 100. */
  readonly maxIssueLines?: number;
}

/** One bar of the spend-over-time chart. */
export interface SpendBucket {
  /** ISO start of the bucket. */
  readonly start: string;
  readonly costUsd: number;
  readonly calls: number;
}

/** Everything a report says about a run, as plain data (`--json`). */
export interface ReportFigures {
  /** ISO time of the first and the last call counted, or null with none. */
  readonly from: string | null;
  readonly to: string | null;
  readonly totals: TallyFigures;
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
     * flat prices of `priceOf(pricedAs ?? model)` in the current price table.
     */
    readonly savedUsd: number;
    /** Cache-hit tokens of models the price table does not know (not in savedUsd). */
    readonly unpricedHitTokens: number;
  };
  /** Failed calls by error kind. */
  readonly errors: Readonly<Record<string, { readonly calls: number; readonly degradations: number }>>;
  /** Failed calls that were degradations, not verdicts. */
  readonly degradations: number;
  readonly spend: { readonly bucket: 'minute' | 'hour'; readonly buckets: readonly SpendBucket[] };
  /** Lines skipped: their count, and the numbers of the first ones. */
  readonly skipped: { readonly count: number; readonly lines: readonly number[] };
  /** Lines outside `since`/`until`. */
  readonly filteredOut: number;
}

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
// Runs up to this long get a bar per minute, longer ones a bar per hour.
const MINUTE_BARS_UP_TO = 2 * HOUR;

/**
 * Adds up journal lines, one at a time (memory grows with the run's minutes and
 * distinct roles, models and endpoints, not with its lines): `add(line)` each,
 * then `result()`.
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
  readonly #perMinute = new Map<number, { costUsd: number; calls: number }>();
  readonly #skippedLines: number[] = [];
  #skipped = 0;
  #filteredOut = 0;
  #lineNumber = 0;
  #first = Number.POSITIVE_INFINITY;
  #last = Number.NEGATIVE_INFINITY;
  #savedUsd = 0;
  #unpricedHitTokens = 0;

  constructor(options: ReportOptions = {}) {
    this.#since = timeOption(options.since, 'since') ?? Number.NEGATIVE_INFINITY;
    this.#until = timeOption(options.until, 'until') ?? Number.POSITIVE_INFINITY;
    this.#maxIssueLines = options.maxIssueLines ?? 100;
  }

  /**
   * Adds one journal line: its text (as read from the file) or a parsed line.
   * `lineNumber` names it when it is malformed; default: one past the last line added.
   */
  add(line: string | JournalLine, lineNumber = this.#lineNumber + 1): void {
    this.#lineNumber = lineNumber;
    if (typeof line === 'string' && line.trim() === '') return;
    const record = recordOf(line, lineNumber);
    const at = record === null ? Number.NaN : Date.parse(record.at);
    if (record === null || Number.isNaN(at)) {
      this.skip(lineNumber);
    } else if (at < this.#since || at >= this.#until) {
      this.#filteredOut += 1;
    } else {
      this.#count(record, at);
    }
  }

  /** Counts a line that could not be read (named by number in the report). */
  skip(lineNumber: number): void {
    this.#skipped += 1;
    if (this.#skippedLines.length < this.#maxIssueLines) this.#skippedLines.push(lineNumber);
  }

  /** The figures of every line added so far. */
  result(): ReportFigures {
    const span = this.#last - this.#first;
    const bucket = span > MINUTE_BARS_UP_TO ? 'hour' : 'minute';
    return Object.freeze({
      from: this.#totals.calls > 0 ? new Date(this.#first).toISOString() : null,
      to: this.#totals.calls > 0 ? new Date(this.#last).toISOString() : null,
      totals: this.#totals.figures(),
      byRole: breakdownOf(this.#byRole),
      byModel: breakdownOf(this.#byModel),
      byEndpoint: breakdownOf(this.#byEndpoint),
      cache: Object.freeze({
        hitTokens: this.#totals.cacheHitTokens,
        inputTokens: this.#totals.inputTokens,
        ratio: cacheHitRatio(this.#totals),
        savedUsd: this.#savedUsd,
        unpricedHitTokens: this.#unpricedHitTokens,
      }),
      errors: Object.freeze(
        Object.fromEntries([...this.#errors].map(([kind, figures]) => [kind, { ...figures }])),
      ),
      degradations: this.#totals.degradations,
      spend: Object.freeze({ bucket, buckets: this.#buckets(bucket === 'hour' ? HOUR : MINUTE) }),
      skipped: Object.freeze({ count: this.#skipped, lines: [...this.#skippedLines] }),
      filteredOut: this.#filteredOut,
    }) as ReportFigures;
  }

  #count(record: JournalLine, at: number): void {
    const tokens = usageTokens(record.usage);
    this.#totals.add(record, tokens);
    tallyOf(this.#byRole, record.role ?? NO_ROLE).add(record, tokens);
    tallyOf(this.#byModel, record.model).add(record, tokens);
    tallyOf(this.#byEndpoint, endpointLabel(record.endpoint)).add(record, tokens);
    if (record.error) {
      const kind = String(record.error.kind);
      const figures = this.#errors.get(kind) ?? { calls: 0, degradations: 0 };
      figures.calls += 1;
      if (record.error.degradation) figures.degradations += 1;
      this.#errors.set(kind, figures);
    }
    if (tokens.cacheRead > 0) {
      const prices = priceOf(record.pricedAs ?? record.model);
      if (prices === null) this.#unpricedHitTokens += tokens.cacheRead;
      else this.#savedUsd += (tokens.cacheRead * (prices.inputPerM - prices.cacheHitPerM)) / 1_000_000;
    }
    this.#first = Math.min(this.#first, at);
    this.#last = Math.max(this.#last, at);
    const minute = Math.floor(at / MINUTE) * MINUTE;
    const bar = this.#perMinute.get(minute) ?? { costUsd: 0, calls: 0 };
    bar.calls += 1;
    if (typeof record.costUsd === 'number' && Number.isFinite(record.costUsd)) bar.costUsd += record.costUsd;
    this.#perMinute.set(minute, bar);
  }

  // Every bucket from the first call's to the last's, empty ones included, so the chart's time axis is even.
  #buckets(size: number): SpendBucket[] {
    if (this.#totals.calls === 0) return [];
    const sums = new Map<number, { costUsd: number; calls: number }>();
    for (const [minute, bar] of this.#perMinute) {
      const start = Math.floor(minute / size) * size;
      const sum = sums.get(start) ?? { costUsd: 0, calls: 0 };
      sum.costUsd += bar.costUsd;
      sum.calls += bar.calls;
      sums.set(start, sum);
    }
    const buckets: SpendBucket[] = [];
    const last = Math.floor(this.#last / size) * size;
    for (let start = Math.floor(this.#first / size) * size; start <= last; start += size) {
      const sum = sums.get(start);
      buckets.push({
        start: new Date(start).toISOString(),
        costUsd: sum?.costUsd ?? 0,
        calls: sum?.calls ?? 0,
      });
    }
    return buckets;
  }
}

function recordOf(line: string | JournalLine, lineNumber: number): JournalLine | null {
  if (typeof line === 'string') {
    const parsed = parseJournalLine(line, lineNumber);
    return parsed !== null && 'record' in parsed ? parsed.record : null;
  }
  return typeof line === 'object' &&
    line !== null &&
    typeof line.model === 'string' &&
    typeof line.at === 'string'
    ? line
    : null;
}

function timeOption(value: Date | string | number | undefined, name: string): number | undefined {
  if (value === undefined) return undefined;
  const time =
    value instanceof Date ? value.getTime() : typeof value === 'number' ? value : Date.parse(value);
  if (!Number.isFinite(time))
    throw new RangeError(`options.${name} must be a date, an ISO time or epoch milliseconds`);
  return time;
}
