/** Options of a {@link FetchTransport} (and of `OpenAITransport`, its former name). */
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

/** Options of `listModels`. */
export interface ListModelsOptions {
  /** Per-attempt timeout in seconds; default 60. */
  timeoutSeconds?: number;
  /** Cancels the call at once; it then rejects with kind `aborted`. */
  signal?: AbortSignal;
}
