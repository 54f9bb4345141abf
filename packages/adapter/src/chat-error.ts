import type { ChatErrorKind } from './chat-error-kind.js';
import type { ChatResponse } from './chat-response.js';

/** Options of a {@link ChatError}. */
export interface ChatErrorOptions {
  /** What went wrong. */
  kind: ChatErrorKind;
  /** The whole message, already free of any key. */
  message: string;
  /** HTTP status when there was one. */
  status?: number | null;
  /** The underlying error, already free of any key. */
  cause?: unknown;
  /** Whether the retry policy would make this call again; default: from `kind` and `status`. */
  retryable?: boolean;
  /** The server's `retry-after` wait, in seconds, when it was past the caller's cap. */
  retryAfterSeconds?: number;
  /** A stream that failed after output arrived: what arrived, read as a response. */
  partial?: ChatResponse;
}

const marker = Symbol.for('switchboard.chat-error');
const retryableKinds: ReadonlySet<ChatErrorKind> = new Set([
  'rate_limited',
  'timeout',
  'server',
  'connection',
]);

const neverRetryableKinds: ReadonlySet<ChatErrorKind> = new Set([
  'billing',
  'aborted',
  'budget',
  'cassette_miss',
]);

/** Whether a call that ended with this status may succeed when made again. */
function isRetryableStatus(status: number | null): boolean {
  return status === 408 || status === 409 || status === 429 || (status !== null && status >= 500);
}

/** A chat call failed; `kind` says how. Rejected by `OpenAITransport`, with the SDK's error as `cause`. */
export class ChatError extends Error {
  override readonly name: string = 'ChatError';
  /** What went wrong. */
  readonly kind: ChatErrorKind;
  /** HTTP status when there was one. */
  readonly status: number | null;
  /**
   * Whether the retry policy would make this call again: by default true for 408, 409, 429, 5xx,
   * connection failures and timeouts; `OpenAITransport` sets it as its policy decided
   * (`x-should-retry`, a cut-off or whitespace-only body, a wait past the cap).
   */
  readonly retryable: boolean;
  /** True for `model_rejected`: the caller records a degradation, never a verdict. */
  readonly degradation: boolean;
  /** The server's `retry-after` wait in seconds, set when it was past the cap and the call ended instead. */
  readonly retryAfterSeconds?: number;
  /**
   * Set when a stream failed (or was aborted) after output had arrived: what
   * arrived, as a response (content and reasoning so far, tool calls whose
   * arguments are whole JSON, the calls' records with their estimated cost).
   */
  readonly partial?: ChatResponse;

  constructor(options: ChatErrorOptions) {
    super(options.message, options.cause === undefined ? undefined : { cause: options.cause });
    // A marker rather than instanceof, so two copies of this package recognise each other's errors.
    Object.defineProperty(this, marker, { value: true });
    this.kind = options.kind;
    this.status = options.status ?? null;
    this.retryable =
      options.retryable ??
      (!neverRetryableKinds.has(this.kind) &&
        (retryableKinds.has(this.kind) || isRetryableStatus(this.status)));
    this.degradation = this.kind === 'model_rejected';
    if (options.retryAfterSeconds !== undefined) this.retryAfterSeconds = options.retryAfterSeconds;
    if (options.partial !== undefined) this.partial = options.partial;
  }

  /** True for any `ChatError`, also one made by another copy of this package. */
  static isInstance(error: unknown): error is ChatError {
    return typeof error === 'object' && error !== null && marker in error && error[marker] === true;
  }
}
