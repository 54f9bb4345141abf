import type { InspectOptions, inspect } from 'node:util';
import type OpenAI from 'openai';
import { parseBaseUrl } from './base-url.js';
import { abortedError, CallAttempt } from './call-attempt.js';
import { deadlineLeftMs } from './call-deadline.js';
import { ChatError } from './chat-error.js';
import type { ChatTransport, TransportRequest, TransportStream } from './chat-transport.js';
import { loadOpenAI } from './load-openai.js';
import { messageOfReply } from './message-of-reply.js';
import { nonEmptyTools } from './non-empty-tools.js';
import { isRecord } from './read-field.js';
import { readReply } from './read-reply.js';
import { backoffMs, type RetryTiming, retryAfterMs } from './retry-policy.js';
import { SseStream } from './sse-stream.js';
import { checkTimeoutSeconds, timeoutMilliseconds } from './timeout-seconds.js';
import { type CallContext, describeCall, toChatError } from './to-chat-error.js';
import { WholeReplyStream } from './whole-reply-stream.js';
import { ATTEMPT, wireFetch } from './wire-fetch.js';

/** Options of an {@link OpenAITransport}. */
export interface OpenAITransportOptions {
  /** The API key, sent as a bearer token; `''` sends no credentials at all. Kept private, never shown. */
  apiKey: string;
  /** Absolute http(s) address the paths `/chat/completions` and `/models` hang off; a trailing `/` is dropped. */
  baseUrl: string;
  /**
   * Attempts per call, the first included; default 3. Retried: connection failures, timeouts, 408, 409,
   * 429, 5xx (or as `x-should-retry` says), a 200 carrying such an error, an empty or whitespace-only
   * body and a body cut off mid-way.
   */
  maxAttempts?: number;
  /** A `fetch` to send requests with; default the global one. Redirects are never followed. */
  fetch?: typeof fetch;
  /**
   * The longest `retry-after` / `retry-after-ms` wait honoured between attempts, in seconds; default 60.
   * A longer one ends the call as `rate_limited` with `retryAfterSeconds` set.
   */
  maxRetryWaitSeconds?: number;
  /** The first backoff wait when the server names none, in seconds, doubled per attempt (at most 8); default 0.5. */
  retryBackoffSeconds?: number;
  /**
   * The largest reply body read, in bytes; default 16 MiB. A longer one is dropped and fails `bad_reply`.
   * For a stream: the whole stream's bytes.
   */
  maxReplyBytes?: number;
  /** The most text one streamed event may hold (characters); default 1 MiB. A longer one fails `bad_reply`. */
  maxEventBytes?: number;
}

/** Options of {@link OpenAITransport.listModels}. */
export interface ListModelsOptions {
  /** Per-attempt timeout in seconds; default 60. */
  timeoutSeconds?: number;
  /** Cancels the call at once; it then rejects with kind `aborted`. */
  signal?: AbortSignal;
}

/** What one call needs besides its request: the caller's signal and the adapter's hooks. */
type CallHooks = Pick<TransportRequest, 'signal' | 'beforeAttempt' | 'afterAttempt'>;

const DEFAULT_MAX_ATTEMPTS = 3;
const DEFAULT_MAX_RETRY_WAIT_SECONDS = 60;
const DEFAULT_RETRY_BACKOFF_SECONDS = 0.5;
const DEFAULT_MAX_REPLY_BYTES = 16 * 1024 * 1024;
const DEFAULT_MAX_EVENT_BYTES = 1024 * 1024;
// The SDK refuses to start without a key; it only ever holds this stand-in, as
// wireFetch sets the Authorization header from the call itself.
const SDK_KEY_STAND_IN = 'switchboard-sets-the-key';
const SILENT = (): void => {};
const SILENT_LOGGER = { error: SILENT, warn: SILENT, info: SILENT, debug: SILENT };

/**
 * The real transport, on the official `openai` SDK: POST `{baseUrl}/chat/completions`
 * and GET `{baseUrl}/models`. The SDK builds the requests; Switchboard owns the
 * rest: one deadline per attempt covering the whole body, its own retry loop,
 * bounded replies, and a wire free of the environment (`OPENAI_*` variables
 * change nothing, nothing is logged). Failures reject with a {@link ChatError}.
 * The key stays private; the SDK client never sees it.
 */
export class OpenAITransport implements ChatTransport {
  /** The address calls go to, without a trailing `/`. */
  readonly baseUrl: string;
  /** Attempts per call, the first included. */
  readonly maxAttempts: number;
  /** This transport calls each request's `beforeAttempt` / `afterAttempt` around every attempt itself. */
  readonly reportsAttempts = true;

  readonly #apiKey: string;
  readonly #fetch: typeof fetch | undefined;
  readonly #client: OpenAI;
  readonly #timing: RetryTiming;
  readonly #maxReplyBytes: number;
  readonly #maxEventBytes: number;

  constructor(options: OpenAITransportOptions) {
    if (!isRecord(options)) throw new TypeError('OpenAITransport options must be an object');
    const { apiKey, fetch } = options;
    if (typeof apiKey !== 'string') {
      throw new TypeError(`apiKey must be a string ('' to send no credentials), got ${typeof apiKey}`);
    }
    if (fetch !== undefined && typeof fetch !== 'function') {
      throw new TypeError(`fetch must be a function, got ${typeof fetch}`);
    }
    this.baseUrl = parseBaseUrl(options.baseUrl, { name: 'baseUrl' });
    this.maxAttempts = validateMaxAttempts(options.maxAttempts ?? DEFAULT_MAX_ATTEMPTS);
    this.#apiKey = apiKey;
    this.#fetch = fetch;
    this.#timing = {
      maxRetryWaitMs:
        checkSeconds(options.maxRetryWaitSeconds ?? DEFAULT_MAX_RETRY_WAIT_SECONDS, 'maxRetryWaitSeconds') *
        1000,
      backoffMs:
        checkSeconds(options.retryBackoffSeconds ?? DEFAULT_RETRY_BACKOFF_SECONDS, 'retryBackoffSeconds') *
        1000,
    };
    this.#maxReplyBytes = validateBytes(options.maxReplyBytes ?? DEFAULT_MAX_REPLY_BYTES, 'maxReplyBytes');
    this.#maxEventBytes = validateBytes(options.maxEventBytes ?? DEFAULT_MAX_EVENT_BYTES, 'maxEventBytes');
    // Every option the SDK would otherwise take from an OPENAI_* variable is pinned here;
    // OPENAI_CUSTOM_HEADERS, which cannot be pinned, never reaches the wire (wireFetch builds the headers).
    this.#client = new (loadOpenAI().OpenAI)({
      apiKey: SDK_KEY_STAND_IN,
      baseURL: this.baseUrl,
      maxRetries: 0,
      adminAPIKey: null,
      organization: null,
      project: null,
      webhookSecret: null,
      logLevel: 'off',
      logger: SILENT_LOGGER,
      fetch: wireFetch(fetch),
    });
  }

  /** POST `{baseUrl}/chat/completions`; resolves with the whole reply payload, a JSON object. */
  async completeChatRaw(request: TransportRequest): Promise<Record<string, unknown>> {
    const context = this.#chatContext(request);
    const body = chatBody(request) as unknown as OpenAI.ChatCompletionCreateParamsNonStreaming;
    return this.#call(
      context,
      request,
      1,
      (attempt) => this.#client.chat.completions.create(body, sdkOptions(attempt)).asResponse(),
      (response, attempt) => readReply(response, attempt, this.#maxReplyBytes),
    );
  }

  /**
   * POST `{baseUrl}/chat/completions` with `stream: true` and `stream_options:
   * {include_usage: true}`; resolves with the open stream of Server-Sent Events
   * once a 2xx reply's headers arrived. Attempts before that are retried as for
   * {@link OpenAITransport.completeChatRaw}; `request.retryOf` continues the
   * count of a stream that failed before any output. The timeout bounds the
   * headers and the first event, then every gap between events; `maxReplyBytes`
   * caps the whole stream and `maxEventBytes` each event. A JSON reply instead
   * of events (a server that does not stream, or a 200 carrying an error) is read
   * as a plain reply: its error typed and retried as for a plain call, its
   * message handed on as a single chunk.
   */
  async streamChatRaw(request: TransportRequest): Promise<TransportStream> {
    const context = this.#chatContext(request);
    const body = {
      ...chatBody(request),
      stream: true,
      stream_options: { include_usage: true },
    } as unknown as OpenAI.ChatCompletionCreateParamsStreaming;
    let first = 1;
    const retryOf = request.retryOf;
    if (retryOf !== undefined) {
      if (retryOf.attempts >= this.maxAttempts) throw retryOf.failure;
      await pause(backoffMs(retryOf.attempts, this.#timing), request.signal, context);
      first = retryOf.attempts + 1;
    }
    return this.#call(
      context,
      request,
      first,
      (attempt) => this.#client.chat.completions.create(body, sdkOptions(attempt)).asResponse(),
      async (response, attempt): Promise<TransportStream> => {
        // The stream opened: the request was sent, and what was streamed may have been billed.
        const onEnd = (failure: unknown | null): void =>
          request.afterAttempt?.(attempt.number, failure, true);
        // A server that ignored `stream: true` (or failed with a 200 carrying an error) answers JSON.
        if (/\bjson\b/i.test(response.headers.get('content-type') ?? '')) {
          return new WholeReplyStream(
            response,
            await readReply(response, attempt, this.#maxReplyBytes),
            onEnd,
          );
        }
        return new SseStream(response, attempt, {
          maxEventBytes: this.#maxEventBytes,
          maxReplyBytes: this.#maxReplyBytes,
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

  /** A copy with that many attempts per call, the same key, address, `fetch` and limits. */
  withMaxAttempts(attempts: number): OpenAITransport {
    return newOpenAITransport({
      apiKey: this.#apiKey,
      baseUrl: this.baseUrl,
      maxAttempts: attempts,
      maxRetryWaitSeconds: this.#timing.maxRetryWaitMs / 1000,
      retryBackoffSeconds: this.#timing.backoffMs / 1000,
      maxReplyBytes: this.#maxReplyBytes,
      maxEventBytes: this.#maxEventBytes,
      ...(this.#fetch ? { fetch: this.#fetch } : {}),
    });
  }

  /** GET `{baseUrl}/models`, read in OpenAI's shape `{data: [{id}]}`: the ids the platform accepts. */
  async listModels(options: ListModelsOptions = {}): Promise<string[]> {
    const context: CallContext = {
      method: 'GET',
      url: `${this.baseUrl}/models`,
      apiKey: this.#apiKey,
      timeoutMs: timeoutMilliseconds(checkTimeoutSeconds(options.timeoutSeconds)),
    };
    const hooks: CallHooks = options.signal ? { signal: options.signal } : {};
    const reply = await this.#call(
      context,
      hooks,
      1,
      (attempt) => this.#client.get('/models', sdkOptions(attempt)).asResponse(),
      (response, attempt) => readReply(response, attempt, this.#maxReplyBytes),
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
    return `OpenAITransport ${show(this.toJSON(), options)}`;
  }

  #chatContext(request: TransportRequest): CallContext {
    return {
      method: 'POST',
      url: `${this.baseUrl}/chat/completions`,
      apiKey: this.#apiKey,
      timeoutMs: timeoutMilliseconds(checkTimeoutSeconds(request.timeoutSeconds)),
      model: request.model,
      sentThinking: isRecord(request.extraBody) && request.extraBody.thinking !== undefined,
    };
  }

  /**
   * Switchboard's retry loop around the SDK's single attempts, numbered from
   * `first`. `read` takes a 2xx reply; with `endsLater` what it returns (an
   * open stream) tells `afterAttempt` itself when it ends.
   */
  async #call<T>(
    context: CallContext,
    hooks: CallHooks,
    first: number,
    send: (attempt: CallAttempt) => Promise<Response>,
    read: (response: Response, attempt: CallAttempt) => T | Promise<T>,
    endsLater = false,
  ): Promise<T> {
    const { signal } = hooks;
    for (let number = first; ; number += 1) {
      if (signal?.aborted) throw abortedError(context, signal);
      // Observers that answer at once (an in-memory budget) cost no turn of the event loop.
      const waiting = hooks.beforeAttempt?.(number);
      if (waiting !== undefined) await waiting;
      const attempt = new CallAttempt(number, context, signal);
      let payload: T | undefined;
      let failure: ChatError | undefined;
      try {
        if (signal?.aborted) throw attempt.fail(abortedError(context, signal));
        payload = await read(await send(attempt), attempt);
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
      if (asked !== undefined && asked > this.#timing.maxRetryWaitMs)
        failure = this.#waitTooLong(failure, asked);
      hooks.afterAttempt?.(number, failure, attempt.sent);
      // A call whose signal fired (the caller's, or its total deadline) makes no further attempt.
      if (!failure.retryable || number >= this.maxAttempts || signal?.aborted) throw failure;
      const wait = asked ?? backoffMs(number, this.#timing);
      const left = deadlineLeftMs(signal);
      // No point waiting for a retry that would start after the call's total deadline: end now.
      if (left !== undefined && wait >= left) throw pastDeadline(failure, wait, left);
      await pause(wait, signal, context);
    }
  }

  /** The server asked for a wait past the cap: the call ends, and says how long, for the caller's scheduler. */
  #waitTooLong(failure: ChatError, askedMs: number): ChatError {
    const seconds = askedMs / 1000;
    return new ChatError({
      kind: 'rate_limited',
      status: failure.status,
      message: `${failure.message} (the server asked to wait ${seconds} s before a retry, past maxRetryWaitSeconds ${this.#timing.maxRetryWaitMs / 1000})`,
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

/**
 * The SDK's options for one attempt: no retries of its own, and the attempt for wireFetch, which
 * sends with the attempt's signal itself (so the SDK adds no listener to it, nor fetch to the SDK's).
 * The SDK's own timer aborts only its own signal, which nothing is sent with: the attempt's deadline
 * is ours alone, and wireFetch sets the `x-stainless-timeout` header from it.
 */
function sdkOptions(attempt: CallAttempt): OpenAI.RequestOptions {
  return {
    maxRetries: 0,
    fetchOptions: { [ATTEMPT]: attempt } as OpenAI.RequestOptions['fetchOptions'],
  };
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

function validateMaxAttempts(maxAttempts: unknown): number {
  if (typeof maxAttempts !== 'number' || !Number.isInteger(maxAttempts) || maxAttempts < 1) {
    throw new RangeError(`maxAttempts must be a positive integer, got ${String(maxAttempts)}`);
  }
  return maxAttempts;
}

/** A non-negative number of seconds that Node's timers can hold. */
function checkSeconds(value: unknown, name: string): number {
  if (typeof value !== 'number' || !(value >= 0) || value * 1000 > 2 ** 31 - 1) {
    throw new RangeError(`${name} must be a number of seconds from 0 to 2147483, got ${String(value)}`);
  }
  return value;
}

function validateBytes(value: unknown, name: string): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1) {
    throw new RangeError(`${name} must be a positive integer number of bytes, got ${String(value)}`);
  }
  return value;
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

/**
 * `new OpenAITransport(...)` from outside the class body: a class that names itself inside its
 * body is renamed by the bundler (`_OpenAITransport`), and the class's name is what users see.
 */
function newOpenAITransport(...args: ConstructorParameters<typeof OpenAITransport>): OpenAITransport {
  return new OpenAITransport(...args);
}
