// The few parts of `@opentelemetry/api` 1.x the telemetry uses, typed here so
// this package's types do not need the optional peer installed. Each type is
// what the observer calls, written so that the real API's objects are
// assignable to it: the values it passes are a subset of the API's own (its
// `AttributeValue` allows mutable arrays only, so no `readonly` here), and
// every parameter the API takes beyond these is left out, never narrowed.

/** One attribute value the telemetry sets: a subset of the API's `AttributeValue`. */
export type OtelAttributeValue = string | number | boolean | string[];

/** Attributes as the telemetry passes them: a subset of the API's `Attributes`. */
export interface OtelAttributes {
  [name: string]: OtelAttributeValue | undefined;
}

/** A time: epoch milliseconds, a `Date`, or `[seconds, nanoseconds]` since the epoch (the API's `HrTime`). */
export type OtelTime = number | Date | [number, number];

/** A span, as `@opentelemetry/api` 1.x defines it (the parts used). */
export interface OtelSpan {
  isRecording(): boolean;
  setAttributes(attributes: OtelAttributes): unknown;
  setStatus(status: { code: number; message?: string }): unknown;
  end(endTime?: OtelTime): void;
}

/** A tracer (`trace.getTracer(name)`), the parts used. */
export interface OtelTracer {
  startSpan(
    name: string,
    options?: { kind?: number; startTime?: OtelTime; attributes?: OtelAttributes },
  ): OtelSpan;
}

/** A histogram (`meter.createHistogram`), the part used. */
export interface OtelHistogram {
  record(value: number, attributes?: OtelAttributes): void;
}

/** A counter (`meter.createCounter`), the part used. */
export interface OtelCounter {
  add(value: number, attributes?: OtelAttributes): void;
}

/** A histogram or a counter. */
export type OtelRecorder = OtelHistogram | OtelCounter;

/** The options the telemetry gives a histogram or counter: description, unit, bucket advice and value type. */
export interface OtelInstrumentOptions {
  description?: string;
  unit?: string;
  advice?: { explicitBucketBoundaries?: number[] };
  /** The API's `ValueType`: 0 `INT`, 1 `DOUBLE` (the default). */
  valueType?: number;
}

/** A meter (`meterProvider.getMeter(name)`), the parts used. */
export interface OtelMeter {
  createHistogram(name: string, options?: OtelInstrumentOptions): OtelHistogram;
  createCounter(name: string, options?: OtelInstrumentOptions): OtelCounter;
}

/** The instrumentation scope's schema URL, as `getTracer` and `getMeter` take it. */
export interface OtelScopeOptions {
  schemaUrl?: string;
}

/** A meter provider (`metrics.getMeterProvider()`, or an SDK's `MeterProvider`). */
export interface OtelMeterProvider {
  getMeter(name: string, version?: string, options?: OtelScopeOptions): OtelMeter;
}

/** The `@opentelemetry/api` module (the parts used); `import * as api from '@opentelemetry/api'` is one. */
export interface OtelApi {
  readonly trace: {
    getTracerProvider(): {
      getTracer(name: string, version?: string, options?: OtelScopeOptions): OtelTracer;
      /** The registered provider behind the global proxy (the API's no-op one while none is). */
      getDelegate?(): unknown;
    };
  };
  readonly metrics: { getMeterProvider(): OtelMeterProvider };
  readonly SpanKind: { readonly CLIENT: number };
  readonly SpanStatusCode: { readonly ERROR: number };
}
