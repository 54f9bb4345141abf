import type { CallObserver } from '@switchboard/adapter';
import { CallInstruments } from './call-instruments.js';
import { type CallContext, callContext, resultAttributes, startAttributes } from './gen-ai-attributes.js';
import type { OtelApi, OtelMeterProvider, OtelTracer } from './otel-api.js';
import type { EndpointInfo, TelemetryRecord } from './telemetry-record.js';
import { usageTokens } from './usage-tokens.js';

// Not a literal: a bundler would then try to bundle the optional peer and fail
// where it is not installed. The API keeps its providers on a global, so the
// copy loaded here sees what an application's own (even bundled) copy registered.
const OTEL_API = '@opentelemetry/api';

/** The instrumentation scope name of spans and metrics. */
export const INSTRUMENTATION_NAME = '@switchboard/telemetry';

/** Options of {@link otelObserver} and {@link createOtelObserver}. */
export interface OtelObserverOptions {
  /** The endpoint the observed adapter calls: `gen_ai.provider.name` is its provider. */
  readonly endpoint?: EndpointInfo | null;
  /** `switchboard.route`; default the endpoint's label (`provider baseUrl`). */
  readonly route?: string;
  /** The tracer to use; default the global tracer provider's (none registered: no spans, near-zero cost). */
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

/** {@link otelObserver} with the `@opentelemetry/api` module given (synchronous). */
export function createOtelObserver(api: OtelApi, options: OtelObserverOptions = {}): CallObserver {
  const context = callContext(options.endpoint, options.route);
  // The global tracer is a proxy: it starts recording once a provider is registered.
  const tracer = options.tracer ?? api.trace.getTracer(INSTRUMENTATION_NAME);
  const instruments = new CallInstruments(() => options.meterProvider ?? api.metrics.getMeterProvider());
  return {
    afterCall(record: TelemetryRecord): void {
      try {
        report(api, tracer, instruments, context, record);
      } catch {
        // Telemetry never breaks a call.
      }
    },
  };
}

function report(
  api: OtelApi,
  tracer: OtelTracer,
  instruments: CallInstruments,
  context: CallContext,
  record: TelemetryRecord,
): void {
  const reported = Date.parse(record.at);
  const endTime = Number.isNaN(reported) ? Date.now() : reported;
  const startTime = endTime - (Number.isFinite(record.durationMs) ? record.durationMs : 0);
  const span = tracer.startSpan(`chat ${record.model}`, {
    kind: api.SpanKind.CLIENT,
    startTime,
    attributes: startAttributes(record, context),
  });
  const tokens = usageTokens(record.usage);
  if (span.isRecording()) {
    span.setAttributes(resultAttributes(record, tokens, context));
    if (record.error) span.setStatus({ code: api.SpanStatusCode.ERROR, message: record.error.kind });
  }
  span.end(endTime);
  instruments.record(record, tokens, context);
}
