import type { ChatMessage, ToolSchema } from './chat-client.js';
import type { ChatError } from './chat-error.js';

/**
 * What `beforeAttempt` may answer for one attempt: a lower `max_tokens` to send in
 * that attempt's body (and only that one's). A transport that applies it says so with
 * `appliesAttemptOverrides`.
 */
export interface AttemptOverrides {
  /** The `max_tokens` this attempt is sent with; never above the request's own. */
  readonly maxTokens?: number;
}

/** The request the adapter hands to its transport. */
export interface TransportRequest {
  model: string;
  messages: ChatMessage[];
  /** Undefined when the caller's list is empty: tools are then omitted from the wire. */
  tools: ToolSchema[] | undefined;
  timeoutSeconds: number;
  /** thinking / temperature / response_format / logprobs / top_logprobs / max_tokens */
  extraBody: Record<string, unknown>;
  /** Cancels the call at once, also between attempts; the transport then rejects with kind `aborted`. */
  signal?: AbortSignal;
  /**
   * Called by the transport before each attempt goes on the wire (1-based). It may
   * wait (a concurrency slot) or throw (a budget refusal, a `ChatError`): the call
   * then ends with that error and nothing is sent. It may answer {@link AttemptOverrides}
   * (a lower `max_tokens`) that a transport with `appliesAttemptOverrides` sends that
   * attempt with.
   */
  beforeAttempt?: (attempt: number) => void | AttemptOverrides | Promise<void | AttemptOverrides>;
  /**
   * Called by the transport when each attempt that `beforeAttempt` let through
   * ends: `failure` is null when a reply was read and will be returned, else the
   * error that ended the attempt (retried or not); `sent` is false when the
   * transport knows the request never went on the wire (undefined: cannot tell).
   */
  afterAttempt?: (attempt: number, failure: unknown | null, sent?: boolean) => void;
  /**
   * Streamed calls only: set when the caller opens a stream again because the
   * previous one failed after it opened but before any output reached the caller
   * (a cut connection, an idle timeout, an error event). `attempts` were made for
   * this raw call so far; the transport counts them against its own attempts
   * (rejecting with `failure` at once, nothing sent and no hook called, when none
   * is left), numbers its next attempt `attempts + 1` and waits its backoff first.
   */
  retryOf?: { readonly attempts: number; readonly failure: ChatError };
}

/**
 * One Server-Sent Event of a streamed reply, in wire order, unparsed: either an
 * event's data (its `data:` lines joined by `\n`; `[DONE]` included), or a
 * comment line (the text after its `:`, e.g. `' keep-alive'`). Comments are
 * kept so idle timers and recorders see them.
 */
export type TransportStreamEvent =
  | {
      /** The event's data text, exactly as sent (JSON, or `[DONE]`). */
      readonly data: string;
      /** The event's `event:` field, when it had one (an `error` event, say). */
      readonly event?: string;
    }
  | {
      /** A comment line's text after the `:`, leading space kept (`' keep-alive'`). */
      readonly comment: string;
    };

/**
 * An open streamed reply: a 2xx response whose body is read as Server-Sent
 * Events, iterated once. The transport makes the attempts up to it (connection
 * failures and error statuses are retried as for a plain call, each told to
 * `beforeAttempt` / `afterAttempt`); the attempt that opened it is told to
 * `afterAttempt` exactly once, when it ends: `null` when the body ended (or
 * {@link TransportStream.close} was called without a failure), else the failure.
 *
 * Wrapping one (to record, replay or delay events) needs only the three fields
 * and the iterator: iterating yields events as they arrive; a wire failure
 * (connection cut, idle timeout, an event or the whole body past its cap, the
 * caller's signal) rejects `next()` with a typed `ChatError` and ends the stream.
 */
export interface TransportStream extends AsyncIterable<TransportStreamEvent> {
  /** The HTTP status (2xx). */
  readonly status: number;
  /** The response headers, names lower-case. */
  readonly headers: Readonly<Record<string, string>>;
  /**
   * Ends the stream at once: the connection is closed if still open, a pending
   * `next()` settles (done, or rejected with `failure`), later ones are done.
   * `failure` is what the caller found wrong (a malformed event, an error event,
   * its own abort) and is reported to `afterAttempt`; none means the caller has
   * all it wanted (after `[DONE]`). Idempotent: the first call wins. Leaving a
   * `for await` loop early (`return()`) is `close()`.
   */
  close(failure?: unknown): void;
  /**
   * An event already read, taken without a promise (and a turn) of its own: what
   * the iterator's `next()` would resolve with at once, or undefined when none is
   * waiting (then call `next()`). It throws what `next()` would reject with. The
   * adapter reads a stream's events so when this is there; a wrapper (a
   * recorder) passes its inner stream's through.
   */
  takeBuffered?(): TransportStreamEvent | undefined;
}

/** What the adapter wraps: an OpenAI-shaped transport. */
export interface ChatTransport {
  /**
   * True when the transport calls `beforeAttempt` / `afterAttempt` of each request
   * itself (`OpenAITransport` does, around each of its attempts); otherwise the
   * adapter calls them around the single transport call.
   */
  readonly reportsAttempts?: boolean;
  /**
   * True when the transport sends each attempt with the {@link AttemptOverrides} its
   * request's `beforeAttempt` returned (`FetchTransport` and `OpenAIClientTransport` do).
   * A transport that reports attempts without it is never given a lower cap to apply.
   */
  readonly appliesAttemptOverrides?: boolean;
  /** The whole reply payload; used when present, so usage and logprobs can be read. */
  completeChatRaw?(request: TransportRequest): Promise<unknown>;
  /** Just the reply message (stubs); no usage is recorded on this path. */
  completeChat(request: TransportRequest): Promise<Record<string, unknown>>;
  /**
   * POST the request with `stream: true` and `stream_options: {include_usage: true}`;
   * resolves with the open stream of Server-Sent Events once a 2xx response's
   * headers arrived. `timeoutSeconds` bounds the wait for the headers and first
   * event and every gap between events (comments count: an idle timeout);
   * `signal` closes the connection at once. Optional: without it the adapter
   * cannot stream over this transport.
   */
  streamChatRaw?(request: TransportRequest): Promise<TransportStream>;
  /** A copy of this transport that makes that many attempts per call. */
  withMaxAttempts?(attempts: number): ChatTransport;
  /** The model ids the provider's `GET /models` lists (`OpenAITransport` has it). */
  listModels?(options?: { timeoutSeconds?: number }): Promise<string[]>;
}
