import type { RetryTiming } from './retry-policy.js';
import type { OpenAITransportOptions } from './transport-options.js';

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
