// The few parts of `@opentelemetry/api` 1.x the telemetry uses, typed here so
// this package's types do not need the optional peer installed.

/** Attribute values as OpenTelemetry takes them. */
export type OtelAttributes = Record<string, string | number | boolean | readonly string[] | undefined>;

/** A span, as `@opentelemetry/api` 1.x defines it (the parts used). */
export interface OtelSpan {
  isRecording(): boolean;
  setAttributes(attributes: OtelAttributes): unknown;
  setStatus(status: { code: number; message?: string }): unknown;
  end(endTime?: Date | number): void;
}

/** A tracer. */
export interface OtelTracer {
  startSpan(
    name: string,
    options?: { kind?: number; startTime?: Date | number; attributes?: OtelAttributes },
  ): OtelSpan;
}

/** A histogram or counter. */
export interface OtelRecorder {
  record?(value: number, attributes?: OtelAttributes): void;
  add?(value: number, attributes?: OtelAttributes): void;
}

/** A meter. */
export interface OtelMeter {
  createHistogram(
    name: string,
    options?: { description?: string; unit?: string; advice?: { explicitBucketBoundaries?: number[] } },
  ): OtelRecorder;
  createCounter(name: string, options?: { description?: string; unit?: string }): OtelRecorder;
}

/** A meter provider. */
export interface OtelMeterProvider {
  getMeter(name: string, version?: string): OtelMeter;
}

/** The `@opentelemetry/api` module (the parts used). */
export interface OtelApi {
  readonly trace: { getTracer(name: string, version?: string): OtelTracer };
  readonly metrics: { getMeterProvider(): OtelMeterProvider };
  readonly SpanKind: { readonly CLIENT: number };
  readonly SpanStatusCode: { readonly ERROR: number };
}
