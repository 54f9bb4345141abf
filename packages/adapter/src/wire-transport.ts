import type { InspectOptions, inspect } from 'node:util';
import { abortedError, CallAttempt } from './call-attempt.js';
import { deadlineLeftMs } from './call-deadline.js';
import { ChatError } from './chat-error.js';
import type { AttemptOverrides, ChatTransport, TransportRequest, TransportStream } from './chat-transport.js';
import { messageOfReply } from './message-of-reply.js';
import { nonEmptyTools } from './non-empty-tools.js';
import { isRecord } from './read-field.js';
import { readReply } from './read-reply.js';
import { backoffMs, retryAfterMs } from './retry-policy.js';
import { SseStream } from './sse-stream.js';
import { checkTimeoutSeconds, timeoutMilliseconds } from './timeout-seconds.js';
import { type CallContext, describeCall, toChatError } from './to-chat-error.js';
import type { TransportLimits } from './transport-limits.js';
import type { ListModelsOptions } from './transport-options.js';
import { WholeReplyStream } from './whole-reply-stream.js';
import type { WireReply } from './wire-reply.js';
import { withAttemptOverrides } from './with-attempt-overrides.js';

/** One request of an attempt: what a wire transport sends, relative to its base address. */
export interface WireCall {
  readonly method: 'POST' | 'GET';
  readonly path: typeof CHAT_PATH | typeof MODELS_PATH;
  /** The JSON body, or null (a GET). */
  readonly body: Record<string, unknown> | null;
}

/** What one call needs besides its request: the caller's signal and the adapter's hooks. */
type CallHooks = Pick<TransportRequest, 'signal' | 'beforeAttempt' | 'afterAttempt'>;

const CHAT_PATH = '/chat/completions';
const MODELS_PATH = '/models';

/**
 * What every wire transport shares: POST `{baseUrl}/chat/completions` (plain and
 * streamed) and GET `{baseUrl}/models` under Switchboard's own retry loop, one
 * deadline per attempt covering the whole body, bounded replies and typed
 * {@link ChatError}s. A transport says only how one attempt's request is sent
 * (`send`): with `fetch` directly ({@link FetchTransport}), with `node:http`
 * (`NodeTransport`), or through a caller's own `openai` client
 * (`OpenAIClientTransport`).
 */
export abstract class WireTransport implements ChatTransport {
  /** The address calls go to, without a trailing `/`. */
  readonly baseUrl: string;
  /** Attempts per call, the first included. */
  readonly maxAttempts: number;
  /** This transport calls each request's `beforeAttempt` / `afterAttempt` around every attempt itself. */
  readonly reportsAttempts = true;
  /** Each attempt is sent with the overrides (a lower `max_tokens`) its `beforeAttempt` answered. */
  readonly appliesAttemptOverrides = true;
  /** @internal */
  protected readonly limits: TransportLimits;

  constructor(baseUrl: string, limits: TransportLimits) {
    this.baseUrl = baseUrl;
    this.maxAttempts = limits.maxAttempts;
    this.limits = limits;
  }

  /**
   * Sends one attempt's request and resolves with its 2xx reply (its body unread); a
   * redirect or an error status rejects with the attempt's typed failure. Sets
   * `attempt.sent` once the request may have left, and `attempt.status` / `headers`.
   * @internal
   */
  protected abstract send(attempt: CallAttempt, call: WireCall): Promise<WireReply>;

  /** The key to keep out of messages, or `''` when this transport holds none. @internal */
  protected abstract get apiKeyForRedaction(): string;

  /** A copy with that many attempts per call, the same address and limits. */
  abstract withMaxAttempts(attempts: number): WireTransport;

  /** POST `{baseUrl}/chat/completions`; resolves with the whole reply payload, a JSON object. */
  async completeChatRaw(request: TransportRequest): Promise<Record<string, unknown>> {
    const context = this.#chatContext(request);
    const body = chatBody(request);
    return this.#call(context, request, 1, this.#sendChat(body), (response, attempt) =>
      readReply(response, attempt, this.limits.maxReplyBytes),
    );
  }

  /**
   * POST `{baseUrl}/chat/completions` with `stream: true` and `stream_options:
   * {include_usage: true}`; resolves with the open stream of Server-Sent Events
   * once a 2xx reply's headers arrived. Attempts before that are retried as for
   * {@link WireTransport.completeChatRaw}; `request.retryOf` continues the
   * count of a stream that failed before any output. The timeout bounds the
   * headers and the first event, then every gap between events; `maxReplyBytes`
   * caps the whole stream and `maxEventBytes` each event. A JSON reply instead
   * of events (a server that does not stream, or a 200 carrying an error) is read
   * as a plain reply: its error typed and retried as for a plain call, its
   * message handed on as a single chunk.
   */
  async streamChatRaw(request: TransportRequest): Promise<TransportStream> {
    const context = this.#chatContext(request);
    const body = { ...chatBody(request), stream: true, stream_options: { include_usage: true } };
    let first = 1;
    const retryOf = request.retryOf;
    if (retryOf !== undefined) {
      if (retryOf.attempts >= this.maxAttempts) throw retryOf.failure;
      await pause(backoffMs(retryOf.attempts, this.limits.timing), request.signal, context);
      first = retryOf.attempts + 1;
    }
    return this.#call(
      context,
      request,
      first,
      this.#sendChat(body),
      async (response, attempt): Promise<TransportStream> => {
        // The stream opened: the request was sent, and what was streamed may have been billed.
        const onEnd = (failure: unknown | null): void =>
          request.afterAttempt?.(attempt.number, failure, true);
        // A server that ignored `stream: true` (or failed with a 200 carrying an error) answers JSON.
        if (/\bjson\b/i.test(response.headers.get('content-type') ?? '')) {
          return new WholeReplyStream(
            response,
            await readReply(response, attempt, this.limits.maxReplyBytes),
            onEnd,
          );
        }
        return new SseStream(response, attempt, {
          maxEventBytes: this.limits.maxEventBytes,
          maxReplyBytes: this.limits.maxReplyBytes,
          signal: request.signal,
          startedAt: attempt.startedAt,
          onEnd,
        });
      },
      true,
    );
  }

  /** POST `{baseUrl}/chat/completions`; resolves with `choices[0].message`, or `{}` when there is none. */
  async completeChat(request: TransportRequest): Promise<Record<string, unknown>> {
    return messageOfReply(await this.completeChatRaw(request));
  }

  /** GET `{baseUrl}/models`, read in OpenAI's shape `{data: [{id}]}`: the ids the platform accepts. */
  async listModels(options: ListModelsOptions = {}): Promise<string[]> {
    const context: CallContext = {
      method: 'GET',
      url: `${this.baseUrl}${MODELS_PATH}`,
      apiKey: this.apiKeyForRedaction,
      timeoutMs: timeoutMilliseconds(checkTimeoutSeconds(options.timeoutSeconds)),
    };
    const hooks: CallHooks = options.signal ? { signal: options.signal } : {};
    const reply = await this.#call(
      context,
      hooks,
      1,
      (attempt) => this.send(attempt, { method: 'GET', path: MODELS_PATH, body: null }),
      (response, attempt) => readReply(response, attempt, this.limits.maxReplyBytes),
    );
    if (!Array.isArray(reply.data)) {
      throw new ChatError({
        kind: 'bad_reply',
        status: 200,
        message: `${describeCall(context, 200)}: the model list has no "data" array`,
      });
    }
    return reply.data.flatMap((model: unknown) =>
      isRecord(model) && typeof model.id === 'string' ? [model.id] : [],
    );
  }

  /** Only the address and attempts: the key never shows. */
  toJSON(): { baseUrl: string; maxAttempts: number } {
    return { baseUrl: this.baseUrl, maxAttempts: this.maxAttempts };
  }

  /** How `util.inspect` shows a transport: the address and attempts, never the key. */
  [Symbol.for('nodejs.util.inspect.custom')](
    _depth: number,
    options: InspectOptions,
    show: typeof inspect,
  ): string {
    return `${this.constructor.name} ${show(this.toJSON(), options)}`;
  }

  #chatContext(request: TransportRequest): CallContext {
    return {
      method: 'POST',
      url: `${this.baseUrl}${CHAT_PATH}`,
      apiKey: this.apiKeyForRedaction,
      timeoutMs: timeoutMilliseconds(checkTimeoutSeconds(request.timeoutSeconds)),
      model: request.model,
      sentThinking: isRecord(request.extraBody) && request.extraBody.thinking !== undefined,
    };
  }

  /**
   * Switchboard's retry loop around single attempts (`send`), numbered from
   * `first`. `read` takes a 2xx reply; with `endsLater` what it returns (an
   * open stream) tells `afterAttempt` itself when it ends.
   */
  async #call<T>(
    context: CallContext,
    hooks: CallHooks,
    first: number,
    send: (attempt: CallAttempt, overrides: AttemptOverrides | undefined) => Promise<WireReply>,
    read: (response: WireReply, attempt: CallAttempt) => T | Promise<T>,
    endsLater = false,
  ): Promise<T> {
    const { signal } = hooks;
    for (let number = first; ; number += 1) {
      if (signal?.aborted) throw abortedError(context, signal);
      // Observers that answer at once (an in-memory budget) cost no turn of the event loop.
      const answer = hooks.beforeAttempt?.(number);
      const overrides = answer === undefined ? undefined : await answer;
      const attempt = new CallAttempt(number, context, signal);
      let payload: T | undefined;
      let failure: ChatError | undefined;
      try {
        if (signal?.aborted) throw attempt.fail(abortedError(context, signal));
        payload = await read(await send(attempt, overrides ?? undefined), attempt);
      } catch (error) {
        failure = attempt.failure ?? toChatError(error, context);
      } finally {
        attempt.dispose();
      }
      if (payload !== undefined) {
        if (!endsLater) hooks.afterAttempt?.(number, null);
        return payload;
      }
      failure ??= toChatError(new Error('the attempt ended without a reply'), context);
      const asked = failure.retryable ? retryAfterMs(attempt.headers) : undefined;
      if (asked !== undefined && asked > this.limits.timing.maxRetryWaitMs)
        failure = this.#waitTooLong(failure, asked);
      hooks.afterAttempt?.(number, failure, attempt.sent);
      // A call whose signal fired (the caller's, or its total deadline) makes no further attempt.
      if (!failure.retryable || number >= this.maxAttempts || signal?.aborted) throw failure;
      const wait = asked ?? backoffMs(number, this.limits.timing);
      const left = deadlineLeftMs(signal);
      // No point waiting for a retry that would start after the call's total deadline: end now.
      if (left !== undefined && wait >= left) throw pastDeadline(failure, wait, left);
      await pause(wait, signal, context);
    }
  }

  /** Sends one attempt of a chat request: `body` with the attempt's overrides (a lower `max_tokens`). */
  #sendChat(body: Record<string, unknown>) {
    return (attempt: CallAttempt, overrides: AttemptOverrides | undefined): Promise<WireReply> =>
      this.send(attempt, { method: 'POST', path: CHAT_PATH, body: withAttemptOverrides(body, overrides) });
  }

  /** The server asked for a wait past the cap: the call ends, and says how long, for the caller's scheduler. */
  #waitTooLong(failure: ChatError, askedMs: number): ChatError {
    const seconds = askedMs / 1000;
    return new ChatError({
      kind: 'rate_limited',
      status: failure.status,
      message: `${failure.message} (the server asked to wait ${seconds} s before a retry, past maxRetryWaitSeconds ${this.limits.timing.maxRetryWaitMs / 1000})`,
      cause: failure,
      retryable: false,
      retryAfterSeconds: seconds,
    });
  }
}

/** The call ends before a retry whose wait would pass its total deadline: a `timeout`, the last failure as cause. */
function pastDeadline(failure: ChatError, waitMs: number, leftMs: number): ChatError {
  return new ChatError({
    kind: 'timeout',
    status: failure.status,
    message: `${failure.message} (not retried: the ${Math.round(waitMs)} ms wait before the next attempt would pass the call's deadline, ${Math.max(0, Math.round(leftMs))} ms away; deadlineSeconds)`,
    cause: failure,
  });
}

/** Waits between attempts; the caller's signal ends the wait (and the call) at once. */
function pause(milliseconds: number, signal: AbortSignal | undefined, context: CallContext): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(abortedError(context, signal));
      return;
    }
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(abortedError(context, signal as AbortSignal));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, milliseconds);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** The chat request body both the plain and the streamed call send. */
function chatBody(request: TransportRequest): Record<string, unknown> {
  const tools = nonEmptyTools(request.tools);
  return {
    model: request.model,
    messages: request.messages,
    temperature: 0,
    ...(tools ? { tools } : {}),
    ...request.extraBody,
  };
}
