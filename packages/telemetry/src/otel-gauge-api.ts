import type { OtelAttributes, OtelCounter, OtelInstrumentOptions } from './otel-api.js';

// The parts of `@opentelemetry/api` 1.x's Meter that budgetMetrics uses, typed here as
// otel-api.ts types the rest: the real API's meters are assignable to them.

/** What an observable gauge's callback is given to report values (the API's `ObservableResult`). */
export interface OtelObservableResult {
  observe(value: number, attributes?: OtelAttributes): void;
}

/** An observable gauge (`meter.createObservableGauge`), the parts used. */
export interface OtelObservableGauge {
  addCallback(callback: (result: OtelObservableResult) => void): void;
  removeCallback(callback: (result: OtelObservableResult) => void): void;
}

/** A meter that makes observable gauges and counters (`metrics.getMeter(name)`, or an SDK's), the parts used. */
export interface OtelGaugeMeter {
  createObservableGauge(name: string, options?: OtelInstrumentOptions): OtelObservableGauge;
  createCounter(name: string, options?: OtelInstrumentOptions): OtelCounter;
}
