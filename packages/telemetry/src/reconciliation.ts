import { costNanoUsdOf, roundedNanoUsd } from './cost-nano-usd-of.js';
import { NanoSum } from './nano-usd.js';
import { settlementOf } from './settlement.js';
import type { TelemetryRecord } from './telemetry-record.js';

/** The drift past which a model is named, as a share of the provider's figure: 1%. */
const DEFAULT_DRIFT_THRESHOLD = 0.01;

/** Most models a reconciliation keeps by name; the others count under `(others)`. */
const MAX_MODELS = 1000;

/** Local figures beside the provider's own, for the calls that had both. */
export interface ReconciliationFigures {
  /** Calls priced locally (the price table, or the endpoint's prices) whose reply carried the provider's cost. */
  readonly calls: number;
  /** What the local prices say they cost, in nano-dollars. */
  readonly localNanoUsd: number;
  /** What the provider said they cost (`usage.cost`), each rounded to the nearest nano-dollar. */
  readonly providerNanoUsd: number;
  /** The two as exact decimals with nine places. */
  readonly local: string;
  readonly provider: string;
  /**
   * `(local − provider) / provider`: above 0 when the local prices overstate the bill; null
   * with no calls, or when the provider's figure is 0 and the local one is not.
   */
  readonly drift: number | null;
}

/** The reconciliation of a run: in total, by model, and the models whose drift passes the threshold. */
export interface Reconciliation extends ReconciliationFigures {
  /** The drift past which a model is named (a share, 0.01 for 1%). */
  readonly driftThreshold: number;
  readonly byModel: Readonly<Record<string, ReconciliationFigures>>;
  /** Models whose drift is past the threshold either way (or unbounded), the largest first. */
  readonly drifting: readonly string[];
}

class Pair {
  calls = 0;
  readonly local = new NanoSum();
  readonly provider = new NanoSum();

  /** Counts one call with both figures. */
  count(local: number, provider: number): void {
    this.calls += 1;
    this.local.add(local);
    this.provider.add(provider);
  }

  figures(): ReconciliationFigures {
    const local = this.local.nanoUsd;
    const provider = this.provider.nanoUsd;
    return Object.freeze({
      calls: this.calls,
      localNanoUsd: local,
      providerNanoUsd: provider,
      local: this.local.decimal,
      provider: this.provider.decimal,
      drift:
        this.calls === 0 || (provider === 0 && local !== 0)
          ? null
          : provider === 0
            ? 0
            : (local - provider) / provider,
    });
  }
}

/** The provider's own cost of a record in nano-dollars, or null when it sent none (or an unreadable one). */
function providerNanoUsdOf(record: { readonly providerCostUsd?: unknown }): number | null {
  const usd = record.providerCostUsd;
  return typeof usd === 'number' && usd > 1e6 ? null : roundedNanoUsd(usd);
}

/**
 * Adds up, call by call, the local cost beside the provider's own for the calls that have
 * both: settled exactly, priced locally (not from the provider's figure, not an estimate),
 * with a `providerCostUsd`. O(1) per call; at most 1,000 models by name.
 */
export class ReconciliationTally {
  readonly #total = new Pair();
  readonly #byModel = new Map<string, Pair>();
  readonly #threshold: number;

  constructor(driftThreshold = DEFAULT_DRIFT_THRESHOLD) {
    if (typeof driftThreshold !== 'number' || !(driftThreshold >= 0))
      throw new RangeError('driftThreshold must be a number >= 0 (a share: 0.01 for 1%)');
    this.#threshold = driftThreshold;
  }

  /**
   * Counts a record when it has both figures; `settlement` defaults to the record's own (or
   * derived), `local` to its cost ({@link costNanoUsdOf}).
   */
  add(record: TelemetryRecord, settlement = settlementOf(record), local = costNanoUsdOf(record)): void {
    if (settlement !== 'exact') return;
    if (record.priceSource === 'provider' || record.priceSource === 'estimate') return;
    const provider = providerNanoUsdOf(record);
    if (local === null || provider === null) return;
    const model = typeof record.model === 'string' ? record.model : String(record.model);
    let pair = this.#byModel.get(model);
    if (pair === undefined) {
      const key = this.#byModel.size >= MAX_MODELS ? '(others)' : model;
      pair = this.#byModel.get(key) ?? new Pair();
      this.#byModel.set(key, pair);
    }
    this.#total.count(local, provider);
    pair.count(local, provider);
  }

  /** The figures so far. */
  figures(): Reconciliation {
    const byModel = Object.fromEntries(
      [...this.#byModel]
        .sort(([a, x], [b, y]) => y.provider.nanoUsd - x.provider.nanoUsd || (a < b ? -1 : a > b ? 1 : 0))
        .map(([model, pair]) => [model, pair.figures()]),
    );
    const drifting = Object.entries(byModel)
      .filter(
        ([, figures]) =>
          figures.calls > 0 && (figures.drift === null || Math.abs(figures.drift) > this.#threshold),
      )
      .sort(([, a], [, b]) => magnitude(b.drift) - magnitude(a.drift))
      .map(([model]) => model);
    return Object.freeze({
      ...this.#total.figures(),
      driftThreshold: this.#threshold,
      byModel: Object.freeze(byModel),
      drifting: Object.freeze(drifting),
    });
  }
}

function magnitude(drift: number | null): number {
  return drift === null ? Number.POSITIVE_INFINITY : Math.abs(drift);
}
