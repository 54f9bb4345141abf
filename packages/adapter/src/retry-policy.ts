import type { ReplyHeaders } from './wire-reply.js';

/** How long a transport waits between attempts, and when a server's wait is too long to honour. */
export interface RetryTiming {
  /** The longest `retry-after` / `retry-after-ms` wait honoured, in milliseconds; a longer one ends the call. */
  maxRetryWaitMs: number;
  /** The first backoff wait when the server names none, in milliseconds; doubled per attempt. */
  backoffMs: number;
}

// The longest backoff of our own, whatever the attempt number.
const MAX_BACKOFF_MS = 8_000;

/**
 * Whether the policy makes another attempt after an HTTP status: the server's
 * `x-should-retry: true|false` wins; else 408, 409, 429 and 5xx. 402 (billing)
 * never: the run should stop and say why.
 */
export function isRetryableStatus(status: number, headers: ReplyHeaders | undefined): boolean {
  if (status === 402) return false;
  const told = headers?.get('x-should-retry');
  if (told === 'true') return true;
  if (told === 'false') return false;
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

/**
 * The wait the server asked for, in milliseconds: `retry-after-ms`, else
 * `retry-after` as seconds or an HTTP date; undefined when it names none.
 */
export function retryAfterMs(headers: ReplyHeaders | undefined): number | undefined {
  if (headers === undefined) return undefined;
  const milliseconds = headers.get('retry-after-ms');
  if (milliseconds !== null && milliseconds.trim() !== '') {
    const value = Number(milliseconds);
    if (Number.isFinite(value)) return Math.max(0, value);
  }
  const after = headers.get('retry-after');
  if (after === null || after.trim() === '') return undefined;
  const seconds = Number(after);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(after);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

/** Exponential backoff with jitter before attempt `attempt + 1`: base·2^(attempt-1), capped, less up to a quarter. */
export function backoffMs(attempt: number, timing: RetryTiming): number {
  const cap = Math.min(MAX_BACKOFF_MS, timing.maxRetryWaitMs);
  const wait = Math.min(timing.backoffMs * 2 ** (attempt - 1), cap);
  return wait * (1 - Math.random() * 0.25);
}
