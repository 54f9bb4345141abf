// LOCAL HARNESS, FOR TESTS ONLY, until the adapter's observer wiring (branch
// `adapter`: `new ChatAdapter(transport, { endpoint, observers })`,
// `adapter.observe(observer)`, `adapter.forRole(role)`) is on main. It stands in
// for the adapter's own `afterCall`: it wraps a transport and tells observers one
// record per raw call, built the way packages/adapter/src/make-call-record.ts
// builds it, plus the reply facts telemetry would like the adapter to add
// (`responseId`, `responseModel`, `finishReason`). Once the wiring is merged,
// end-to-end.test.ts should pass the observers to ChatAdapter and this file goes.
import {
  type CallObserver,
  ChatError,
  type ChatTransport,
  type CostModel,
  type TransportRequest,
} from '@switchboard/adapter';
import type { TelemetryRecord } from '../telemetry-record.js';

/** A transport that reports each raw call of `inner` to `observers`, tagged with `role`. */
export function observingTransport(
  inner: ChatTransport & { completeChatRaw(request: TransportRequest): Promise<unknown> },
  costModel: CostModel,
  pricedAs: string,
  role: string | null,
  observers: readonly CallObserver[],
): ChatTransport {
  const tell = (record: TelemetryRecord) => {
    for (const observer of observers) observer.afterCall?.(Object.freeze(record));
  };
  return {
    completeChat: (request) => inner.completeChat(request),
    async completeChatRaw(request) {
      const started = performance.now();
      try {
        const reply = (await inner.completeChatRaw(request)) as Record<string, unknown>;
        const usage = isObject(reply.usage) ? Object.freeze({ ...reply.usage }) : null;
        const costUsd = usage === null ? null : costModel.cost(usage);
        const choice = Array.isArray(reply.choices)
          ? (reply.choices[0] as Record<string, unknown>)
          : undefined;
        tell({
          ...base(request, role, started),
          usage,
          costUsd,
          pricedAs: costUsd === null ? null : pricedAs,
          priceSource: costUsd === null ? null : 'endpoint',
          error: null,
          responseId: typeof reply.id === 'string' ? reply.id : null,
          responseModel: typeof reply.model === 'string' ? reply.model : null,
          finishReason: typeof choice?.finish_reason === 'string' ? choice.finish_reason : null,
        });
        return reply;
      } catch (error) {
        const failure = ChatError.isInstance(error)
          ? { kind: error.kind, status: error.status, degradation: error.degradation }
          : { kind: 'connection' as const, status: null, degradation: false };
        tell({
          ...base(request, role, started),
          usage: null,
          costUsd: null,
          pricedAs: null,
          priceSource: null,
          error: failure,
        });
        throw error;
      }
    },
  };
}

function base(request: TransportRequest, role: string | null, started: number) {
  return {
    model: request.model,
    tariff: null,
    at: new Date().toISOString(),
    durationMs: performance.now() - started,
    attempts: 1,
    role,
  };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
