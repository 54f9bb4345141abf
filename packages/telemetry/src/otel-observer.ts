import type { CallObserver, ObservedEndpoint, OutputChunk } from '@switchboard/adapter';
import { boundedString } from './bounded-string.js';
import { CallInstruments } from './call-instruments.js';
import { costAmounts } from './cost-amounts.js';
import { endpointLabel } from './endpoint-label.js';
import { type CallContext, resultAttributes, startAttributes } from './gen-ai-attributes.js';
import { INSTRUMENTATION_NAME, INSTRUMENTATION_VERSION, scopeOptions } from './instrumentation-scope.js';
import type { OtelApi, OtelMeterProvider, OtelTracer } from './otel-api.js';
import { conventionsOf, type OtelConventions } from './otel-conventions.js';
import { providerNameOf } from './provider-name.js';
import { reportedTokens } from './reported-tokens.js';
import { serverOf } from './server-of.js';
import type { EndpointInfo, TelemetryRecord } from './telemetry-record.js';

// Not a literal: a bundler would then try to bundle the optional peer and fail
// where it is not installed. The API keeps its providers on a global, so the
// copy loaded here sees what an application's own (even bundled) copy registered.
const OTEL_API = '@opentelemetry/api';

/** Options of {@link otelObserver} and {@link createOtelObserver}. */
export interface OtelObserverOptions {
  /**
   * The endpoint the observed adapter calls: `server.address` and `server.port` come
   * from its base address. Observers passed to `resolveChatEndpoint` learn it there.
   */
  readonly endpoint?: EndpointInfo | null;
  /**
   * `gen_ai.provider.name`: the vendor as the GenAI conventions list it (one of their
   * values MUST be used when one applies). Default the name the configuration gave
   * (`[telemetry] provider_name`), else `switchboard.<provider kind>` (`switchboard.primary`…).
   */
  readonly providerName?: string;
  /** `switchboard.route`; default the endpoint's label (`provider baseUrl`). */
  readonly route?: string;
  /**
   * Which GenAI conventions to follow: `'v1.41.0'` (default) or `'gen_ai_latest_experimental'`.
   * Default from `OTEL_SEMCONV_STABILITY_OPT_IN` (a comma-separated list): the latest
   * conventions when it lists `gen_ai_latest_experimental`.
   */
  readonly conventions?: OtelConventions;
  /**
   * The tracer to use; default the global tracer provider's, with this package's name,
   * version and schema URL (none registered: no spans, near-zero cost).
   */
  readonly tracer?: OtelTracer;
  /** The meter provider to use; default the global one, looked up per call so a later registration counts. */
  readonly meterProvider?: OtelMeterProvider;
}

/**
 * A `CallObserver` that reports each raw call to OpenTelemetry: a CLIENT span
 * `chat {model}` with the GenAI semantic-convention attributes, and the GenAI
 * client metrics plus a USD counter. Loads `@opentelemetry/api` (an optional
 * peer) only now; without it, resolves to an observer that does nothing.
 */
export async function otelObserver(options: OtelObserverOptions = {}): Promise<CallObserver> {
  let api: OtelApi;
  try {
    api = (await import(OTEL_API)) as OtelApi;
  } catch {
    return {};
  }
  return createOtelObserver(api, options);
}

/**
 * {@link otelObserver} with the `@opentelemetry/api` module given (synchronous).
 * @throws {TypeError} for a `providerName` not shaped like a convention value, or unknown `conventions`.
 */
export function createOtelObserver(api: OtelApi, options: OtelObserverOptions = {}): CallObserver {
  const endpoint = options.endpoint ?? null;
  const conventions = conventionsOf(options.conventions);
  const context: CallContext = {
    providerName: providerNameOf(options.providerName, endpoint),
    route: options.route ?? endpointLabel(endpoint),
    server: serverOf(endpoint?.baseUrl),
    conventions,
  };
  // The global tracer is a proxy: it starts recording once a provider is registered. The
  // provider's getTracer, not trace.getTracer, which drops the schema URL.
  const tracer =
    options.tracer ??
    api.trace
      .getTracerProvider()
      .getTracer(INSTRUMENTATION_NAME, INSTRUMENTATION_VERSION, scopeOptions(conventions));
  const instruments = new CallInstruments(
    () => options.meterProvider ?? api.metrics.getMeterProvider(),
    context,
  );
  // The global tracer records nothing while no SDK is registered: then no span is built only to be
  // dropped. Asked per call, as a provider may be registered later; a tracer given is always used.
  const tracing = options.tracer === undefined ? () => tracerProviderRegistered(api) : () => true;
  const observer: CallObserver = {
    afterCall(record: TelemetryRecord): void {
      try {
        const traced = tracing();
        // Neither spans nor metrics would be kept: the call costs a look at the providers and no more.
        if (!traced && !instruments.active) return;
        report(api, traced ? tracer : null, instruments, context, record);
      } catch {
        // Telemetry never breaks a call.
      }
    },
    afterChunk(chunk: OutputChunk): void {
      try {
        // Metrics only: the chunk's time is a point of the time-per-output-chunk histogram.
        instruments.recordChunk(chunk);
      } catch {
        // Telemetry never breaks a call.
      }
    },
    withEndpoint(observed: ObservedEndpoint): CallObserver {
      // An endpoint given in code stays.
      if (options.endpoint) return observer;
      return createOtelObserver(api, { ...options, conventions, endpoint: observed });
    },
  };
  return observer;
}

/**
 * False while the global tracer provider is the API's no-op one (no SDK registered). A provider whose
 * class name a bundler changed is taken as registered: spans are then built as always.
 */
function tracerProviderRegistered(api: OtelApi): boolean {
  const provider = api.trace.getTracerProvider();
  const delegate = typeof provider.getDelegate === 'function' ? provider.getDelegate() : provider;
  return (
    (delegate as { constructor?: { name?: unknown } } | null)?.constructor?.name !== 'NoopTracerProvider'
  );
}

/** Reports one call: its span when `tracer` is given, and its metrics. */
function report(
  api: OtelApi,
  tracer: OtelTracer | null,
  instruments: CallInstruments,
  context: CallContext,
  record: TelemetryRecord,
): void {
  const reported = Date.parse(record.at);
  const endMs = Number.isNaN(reported) ? Date.now() : reported;
  // One duration, in whole nanoseconds, for the span and the metric: a negative or
  // non-finite one is 0. The span's times are [seconds, nanoseconds], so its duration
  // is exactly the metric's (epoch milliseconds as a double would lose ~0.2 µs).
  const durationNs =
    Number.isFinite(record.durationMs) && record.durationMs > 0 ? Math.round(record.durationMs * 1e6) : 0;
  const tokens = reportedTokens(record.usage);
  const cost = costAmounts(record);
  if (tracer !== null) {
    const span = tracer.startSpan(`chat ${boundedString(record.model)}`, {
      kind: api.SpanKind.CLIENT,
      startTime: hrTime(endMs, durationNs),
      attributes: startAttributes(record, context),
    });
    if (span.isRecording()) {
      span.setAttributes(resultAttributes(record, tokens, cost, context));
      if (record.error) {
        // error.type names the kind; the description adds an error status the provider answered
        // with, never repeats the kind. A stream cut after a 200 has no description: `HTTP 200`
        // would say the call succeeded.
        const status = record.error.status;
        span.setStatus(
          typeof status === 'number' && status >= 400
            ? { code: api.SpanStatusCode.ERROR, message: `HTTP ${status}` }
            : { code: api.SpanStatusCode.ERROR },
        );
      }
    }
    span.end(hrTime(endMs, 0));
  }
  instruments.record({ record, tokens, cost, seconds: durationNs / 1e9 });
}

// [seconds, nanoseconds] of `beforeNs` nanoseconds before the epoch time `epochMs` (whole
// milliseconds), in integers only: epoch nanoseconds exceed what a double holds exactly.
function hrTime(epochMs: number, beforeNs: number): [number, number] {
  const seconds = Math.floor(epochMs / 1000);
  const nanos = (epochMs - seconds * 1000) * 1e6 - beforeNs;
  const borrow = nanos < 0 ? Math.ceil(-nanos / 1e9) : 0;
  return [seconds - borrow, nanos + borrow * 1e9];
}
