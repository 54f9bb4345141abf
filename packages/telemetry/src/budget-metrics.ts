import { boundedString } from './bounded-string.js';
import { BoundedValues } from './bounded-values.js';
import {
  BudgetSnapshot,
  MAX_METERED_SCOPES,
  type MeteredBudget,
  type MeteredScope,
} from './budget-snapshot.js';
import { COST_CURRENCY } from './gen-ai-attributes.js';
import type { OtelGaugeMeter, OtelObservableGauge, OtelObservableResult } from './otel-gauge-api.js';

/** Options of {@link budgetMetrics}. */
export interface BudgetMetricsOptions {
  /**
   * The meter to make the instruments on: the one the call metrics use
   * (`metrics.getMeter(INSTRUMENTATION_NAME, INSTRUMENTATION_VERSION)`), or any other.
   */
  readonly meter: OtelGaugeMeter;
  /**
   * How often the budget's figures are read again, in milliseconds (default 10,000; from 100 to
   * 2^31 − 1): a collection reports the last figures read, so the gauges are at most this old
   * and a shared store is asked once per interval, not once per collection.
   */
  readonly intervalMs?: number;
}

/** What {@link budgetMetrics} returns. */
export interface BudgetMetrics {
  /** Stops reading the budget, reporting its gauges and counting its refusals. Idempotent. */
  close(): void;
}

/** The scope attribute of every budget instrument. */
const SCOPE = 'switchboard.budget.scope';
/** The refusal's reason on the refusals counter, as the conventions name an error's type. */
const ERROR_TYPE = 'error.type';
const DEFAULT_INTERVAL_MS = 10_000;
const MIN_INTERVAL_MS = 100;
const MAX_INTERVAL_MS = 2 ** 31 - 1;
// The API's ValueType.INT.
const INT = 0;

type Figure = (scope: MeteredScope) => number | null;

/**
 * Exports a budget's scopes as OpenTelemetry metrics: observable gauges `switchboard.budget.spent`,
 * `.limit` and `.reserved` (USD) and `.in_flight` (`{call}`), each with `switchboard.budget.scope`
 * (the scope's path), for the scopes of `budget.usage()` and of each of its roles; and a counter
 * `switchboard.budget.refusals` (`{call}`) of the calls it refused, by `switchboard.budget.scope`
 * and `error.type` (the `BudgetError`'s reason). The figures are read every `intervalMs` in the
 * background and cached: a collection never waits for the store. A windowed scope's figures are
 * its current window's (no window attribute: the series continues across windows, and drops to
 * the new window's spend at its start).
 * @throws {TypeError} for a budget without `usage()` or a meter without `createObservableGauge`.
 * @throws {RangeError} for an `intervalMs` out of range.
 */
export function budgetMetrics(budget: MeteredBudget, options: BudgetMetricsOptions): BudgetMetrics {
  if (budget === null || typeof budget !== 'object' || typeof budget.usage !== 'function')
    throw new TypeError('budget must be a Budget (an object with a usage() method)');
  const { meter } = options ?? {};
  if (typeof meter?.createObservableGauge !== 'function' || typeof meter.createCounter !== 'function')
    throw new TypeError(
      'options.meter must be an OpenTelemetry Meter (with createObservableGauge and createCounter)',
    );
  const snapshot = new BudgetSnapshot(budget, intervalOf(options.intervalMs));
  const gauges: [OtelObservableGauge, (result: OtelObservableResult) => void][] = [
    gauge(
      meter,
      'switchboard.budget.spent',
      'Spend of a budget scope: settled costs plus unsettled worst cases',
      COST_CURRENCY,
      snapshot,
      (scope) => scope.spentUsd,
    ),
    gauge(
      meter,
      'switchboard.budget.limit',
      'Spend limit of a budget scope',
      COST_CURRENCY,
      snapshot,
      (scope) => scope.limitUsd,
    ),
    gauge(
      meter,
      'switchboard.budget.reserved',
      'Held by the calls in flight in a budget scope',
      COST_CURRENCY,
      snapshot,
      (scope) => scope.reservedUsd,
    ),
    gauge(
      meter,
      'switchboard.budget.in_flight',
      'Calls in flight in a budget scope',
      '{call}',
      snapshot,
      (scope) => scope.inFlight,
    ),
  ];
  const refusals = meter.createCounter('switchboard.budget.refusals', {
    description: 'Calls a budget refused before sending them',
    unit: '{call}',
    valueType: INT,
  });
  const scopes = new BoundedValues(SCOPE, MAX_METERED_SCOPES);
  const stopRefusals =
    typeof budget.onRefusal === 'function'
      ? budget.onRefusal((refusal) => {
          const attributes: Record<string, string> = { [ERROR_TYPE]: boundedString(String(refusal.reason)) };
          if (typeof refusal.scope === 'string') attributes[SCOPE] = scopes.of(refusal.scope);
          refusals.add(1, attributes);
        })
      : () => {};
  let closed = false;
  return {
    close() {
      if (closed) return;
      closed = true;
      snapshot.close();
      stopRefusals();
      for (const [instrument, callback] of gauges) instrument.removeCallback(callback);
    },
  };
}

/** A gauge reporting `figure` of each scope of the snapshot (a null figure: none for that scope). */
function gauge(
  meter: OtelGaugeMeter,
  name: string,
  description: string,
  unit: string,
  snapshot: BudgetSnapshot,
  figure: Figure,
): [OtelObservableGauge, (result: OtelObservableResult) => void] {
  const instrument = meter.createObservableGauge(name, { description, unit });
  const callback = (result: OtelObservableResult) => {
    for (const scope of snapshot.scopes) {
      const value = figure(scope);
      if (typeof value === 'number' && Number.isFinite(value))
        result.observe(value, { [SCOPE]: boundedString(scope.scope) });
    }
  };
  instrument.addCallback(callback);
  return [instrument, callback];
}

function intervalOf(intervalMs: number | undefined): number {
  if (intervalMs === undefined) return DEFAULT_INTERVAL_MS;
  if (!Number.isInteger(intervalMs) || intervalMs < MIN_INTERVAL_MS || intervalMs > MAX_INTERVAL_MS)
    throw new RangeError(
      `options.intervalMs must be a whole number of milliseconds from ${MIN_INTERVAL_MS} to ${MAX_INTERVAL_MS}, got ${String(intervalMs)}`,
    );
  return intervalMs;
}
