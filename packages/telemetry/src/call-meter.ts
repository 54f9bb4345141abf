import type { CallObserver } from '@switchboard/adapter';
import { costNanoUsdOf } from './cost-nano-usd-of.js';
import { endpointLabel } from './endpoint-label.js';
import { timeMs } from './journal-time.js';
import { type PriceAgeFigures, PriceAgeTally } from './price-age-tally.js';
import { type Reconciliation, ReconciliationTally } from './reconciliation.js';
import { settlementOf } from './settlement.js';
import { breakdownOf, cacheHitRatio, Tally, type TallyFigures, tallyOf } from './tally.js';
import type { EndpointInfo, TelemetryRecord } from './telemetry-record.js';
import { usageTokens } from './usage-tokens.js';

/** Options of {@link CallMeter}. */
export interface CallMeterOptions {
  /** The endpoint label its calls count under (see `endpointLabel`); default `'default'`. */
  readonly endpoint?: string;
  /** The drift from the provider's own figures past which a model is named (a share); default 0.01. */
  readonly driftThreshold?: number;
  /** A call priced from an entry checked more than this many days before it counts as stale; default 90. */
  readonly staleAfterDays?: number;
}

/** What a {@link CallMeter} has counted, as plain frozen figures. */
export interface MeterSnapshot {
  readonly totals: TallyFigures;
  /** Cache-hit tokens / prompt tokens over every call, or null before any prompt token. */
  readonly cacheHitRatio: number | null;
  /** By role (`'(none)'` for calls without one). */
  readonly byRole: Readonly<Record<string, TallyFigures>>;
  readonly byModel: Readonly<Record<string, TallyFigures>>;
  readonly byEndpoint: Readonly<Record<string, TallyFigures>>;
  /** Failed calls by error kind. */
  readonly byErrorKind: Readonly<Record<string, TallyFigures>>;
  /** The local cost beside the provider's own (`usage.cost`) for the calls that had both, and the drift. */
  readonly reconciliation: Reconciliation;
  /** How old the prices the calls were costed with were, at each call's time. */
  readonly priceAge: PriceAgeFigures;
}

/** The role key of calls made without a role. */
export const NO_ROLE = '(none)';

/**
 * An in-memory aggregate of calls, a `CallObserver`: totals and breakdowns by
 * role, model, endpoint and error kind, and the cache-hit ratio. O(1) per call.
 * Observe several adapters (or endpoints) with one meter through
 * {@link CallMeter.forEndpoint}.
 */
export class CallMeter implements CallObserver {
  readonly #endpoint: string;
  readonly #hasEndpoint: boolean;
  readonly #totals = new Tally();
  readonly #byRole = new Map<string, Tally>();
  readonly #byModel = new Map<string, Tally>();
  readonly #byEndpoint = new Map<string, Tally>();
  readonly #byErrorKind = new Map<string, Tally>();
  readonly #reconciliation: ReconciliationTally;
  readonly #priceAge: PriceAgeTally;

  constructor(options: CallMeterOptions = {}) {
    if (options.endpoint !== undefined && typeof options.endpoint !== 'string')
      throw new TypeError('options.endpoint must be a string label');
    this.#endpoint = options.endpoint ?? 'default';
    this.#hasEndpoint = options.endpoint !== undefined;
    this.#reconciliation = new ReconciliationTally(options.driftThreshold);
    this.#priceAge = new PriceAgeTally(options.staleAfterDays);
  }

  /** Counts one raw call under this meter's endpoint label. */
  afterCall(record: TelemetryRecord): void {
    this.count(record, this.#endpoint);
  }

  /** An observer counting into this meter under another endpoint label. */
  forEndpoint(endpoint: string): CallObserver {
    if (typeof endpoint !== 'string') throw new TypeError('endpoint must be a string label');
    return { afterCall: (record) => this.count(record, endpoint) };
  }

  /**
   * What `resolveChatEndpoint` attaches: this meter when it was given a label, else
   * an observer counting under the resolved endpoint's label (`endpointLabel`).
   */
  withEndpoint(endpoint: EndpointInfo): CallObserver {
    return this.#hasEndpoint ? this : this.forEndpoint(endpointLabel(endpoint));
  }

  /** Counts one raw call under `endpoint`. */
  count(record: TelemetryRecord, endpoint: string): void {
    const tokens = usageTokens(record.usage);
    // The settlement and the cost worked out once for every tally of the call.
    const settlement = settlementOf(record);
    const cost = costNanoUsdOf(record);
    this.#totals.add(record, tokens, settlement, cost);
    tallyOf(this.#byRole, record.role ?? NO_ROLE).add(record, tokens, settlement, cost);
    tallyOf(this.#byModel, record.model).add(record, tokens, settlement, cost);
    tallyOf(this.#byEndpoint, endpoint).add(record, tokens, settlement, cost);
    if (record.error) tallyOf(this.#byErrorKind, record.error.kind).add(record, tokens, settlement, cost);
    this.#reconciliation.add(record, settlement, cost);
    const at = timeMs(record.at);
    if (!Number.isNaN(at)) this.#priceAge.add(record, at, cost);
  }

  /** The figures so far. */
  snapshot(): MeterSnapshot {
    return Object.freeze({
      totals: this.#totals.figures(),
      cacheHitRatio: cacheHitRatio(this.#totals),
      byRole: breakdownOf(this.#byRole),
      byModel: breakdownOf(this.#byModel),
      byEndpoint: breakdownOf(this.#byEndpoint),
      byErrorKind: breakdownOf(this.#byErrorKind),
      reconciliation: this.#reconciliation.figures(),
      priceAge: this.#priceAge.figures(),
    });
  }
}
