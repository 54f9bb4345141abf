/**
 * What went wrong with a chat call, so callers branch on a kind and never
 * string-match a message.
 */
export type ChatErrorKind =
  | 'model_rejected'
  | 'bad_request'
  | 'auth'
  | 'rate_limited'
  | 'timeout'
  | 'server'
  | 'connection'
  | 'bad_reply'
  /** HTTP 402: insufficient balance or credits; the run should stop and say why. Never retryable. */
  | 'billing'
  /** The caller's `AbortSignal` cancelled the call. Never retryable. */
  | 'aborted'
  /** A budget or concurrency limit refused the call before anything was sent. Never retryable. */
  | 'budget'
  /** A cassette replayed in strict mode holds no recording of this request; nothing was sent. Never retryable. */
  | 'cassette_miss';
