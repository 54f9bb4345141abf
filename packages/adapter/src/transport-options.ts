import type { RetryTiming } from './retry-policy.js';

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

/** The limits every wire transport keeps, checked. */
export interface TransportLimits {
  readonly maxAttempts: number;
  readonly timing: RetryTiming;
  readonly maxReplyBytes: number;
  readonly maxEventBytes: number;
}

const DEFAULT_MAX_ATTEMPTS = 3;
const DEFAULT_MAX_RETRY_WAIT_SECONDS = 60;
const DEFAULT_RETRY_BACKOFF_SECONDS = 0.5;
const DEFAULT_MAX_REPLY_BYTES = 16 * 1024 * 1024;
const DEFAULT_MAX_EVENT_BYTES = 1024 * 1024;

/** The limits of `options`, defaults filled in; a RangeError names a bad one. */
export function transportLimits(
  options: Pick<
    OpenAITransportOptions,
    'maxAttempts' | 'maxRetryWaitSeconds' | 'retryBackoffSeconds' | 'maxReplyBytes' | 'maxEventBytes'
  >,
): TransportLimits {
  return {
    maxAttempts: validateMaxAttempts(options.maxAttempts ?? DEFAULT_MAX_ATTEMPTS),
    timing: {
      maxRetryWaitMs:
        checkSeconds(options.maxRetryWaitSeconds ?? DEFAULT_MAX_RETRY_WAIT_SECONDS, 'maxRetryWaitSeconds') *
        1000,
      backoffMs:
        checkSeconds(options.retryBackoffSeconds ?? DEFAULT_RETRY_BACKOFF_SECONDS, 'retryBackoffSeconds') *
        1000,
    },
    maxReplyBytes: validateBytes(options.maxReplyBytes ?? DEFAULT_MAX_REPLY_BYTES, 'maxReplyBytes'),
    maxEventBytes: validateBytes(options.maxEventBytes ?? DEFAULT_MAX_EVENT_BYTES, 'maxEventBytes'),
  };
}

/** The options that make the same limits again (for a copy with other attempts). */
export function limitOptions(limits: TransportLimits, maxAttempts: number) {
  return {
    maxAttempts,
    maxRetryWaitSeconds: limits.timing.maxRetryWaitMs / 1000,
    retryBackoffSeconds: limits.timing.backoffMs / 1000,
    maxReplyBytes: limits.maxReplyBytes,
    maxEventBytes: limits.maxEventBytes,
  };
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
