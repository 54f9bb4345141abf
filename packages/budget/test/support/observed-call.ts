// A stand-in for the adapter's observer wiring (the adapter engineer is adding
// `observers` to ChatAdapter): one raw call over a transport, attempt by attempt,
// calling each CallObserver exactly as packages/adapter/src/call-observer.ts
// documents. Once ChatAdapter takes observers, the end-to-end tests switch to it.
import {
  type AttemptHandle,
  type CallObserver,
  type CallRecord,
  ChatError,
  type ChatMessage,
  type ChatTransport,
} from '@switchboard/adapter';
import { costOf, priceOf } from '@switchboard/prices';

/** One raw call to make through {@link observedCall}. */
export interface ObservedRequest {
  readonly model: string;
  readonly messages: ChatMessage[];
  readonly maxTokens: number | null;
  readonly role?: string | null;
  readonly signal?: AbortSignal;
  /** Attempts, the first included; retryable failures are tried again after `retryDelayMs`. */
  readonly maxAttempts?: number;
  readonly retryDelayMs?: number;
}

/**
 * Makes one raw call with a single-attempt transport, retrying retryable failures
 * itself, so each attempt is framed by `beforeAttempt` and its handle's `end`.
 * Resolves the call's record; rejects with the last failure (a refusal included).
 */
export async function observedCall(
  transport: ChatTransport,
  observers: readonly CallObserver[],
  request: ObservedRequest,
): Promise<CallRecord> {
  const started = performance.now();
  const maxAttempts = request.maxAttempts ?? 3;
  for (let attempt = 1; ; attempt++) {
    const info = {
      model: request.model,
      attempt,
      role: request.role ?? null,
      messages: request.messages,
      tools: undefined,
      maxTokens: request.maxTokens,
      signal: request.signal,
    };
    const handles: AttemptHandle[] = [];
    try {
      for (const observer of observers) {
        const handle = await observer.beforeAttempt?.(info);
        if (handle) handles.push(handle);
      }
    } catch (refusal) {
      await endAll(handles, { record: null, error: refusal });
      throw refusal;
    }
    let reply: unknown;
    try {
      reply = await transport.completeChatRaw?.({
        model: request.model,
        messages: request.messages,
        tools: undefined,
        timeoutSeconds: 30,
        extraBody: request.maxTokens === null ? {} : { max_tokens: request.maxTokens },
        ...(request.signal ? { signal: request.signal } : {}),
      });
    } catch (error) {
      await endAll(handles, { record: null, error });
      const retryable = ChatError.isInstance(error) && error.retryable;
      if (!retryable || attempt >= maxAttempts) throw error;
      await new Promise((resolve) => setTimeout(resolve, request.retryDelayMs ?? 10));
      continue;
    }
    const usage = (reply as { usage?: Record<string, unknown> }).usage ?? null;
    const costUsd = costOf(priceOf(request.model), usage);
    const record: CallRecord = Object.freeze({
      model: request.model,
      usage: usage === null ? null : Object.freeze({ ...usage }),
      costUsd,
      pricedAs: costUsd === null ? null : request.model,
      priceSource: costUsd === null ? null : 'table',
      tariff: null,
      at: new Date().toISOString(),
      durationMs: performance.now() - started,
      attempts: attempt,
      role: request.role ?? null,
      error: null,
    });
    await endAll(handles, { record, error: null });
    for (const observer of observers) observer.afterCall?.(record);
    return record;
  }
}

async function endAll(
  handles: readonly AttemptHandle[],
  outcome: { record: CallRecord | null; error: unknown },
): Promise<void> {
  // A handle must not throw; if one does, the others still end.
  await Promise.all(handles.map((handle) => Promise.resolve(handle.end(outcome)).catch(() => {})));
}
