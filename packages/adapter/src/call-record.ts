import type { ChatErrorKind } from './chat-error.js';
import type { CallPricing } from './cost-model.js';
import type { UsageEntry } from './usage-entry.js';

/**
 * One raw call (a request and its retries, up to its reply or its last failure),
 * made by the adapter once per raw call. Records are frozen plain data: safe to
 * journal (never a key, never message content) and to sum.
 */
export interface CallRecord extends CallPricing {
  /** The model id as sent. */
  readonly model: string;
  /** A plain, frozen copy of the reply's `usage`, or null (no reply, or none in it). */
  readonly usage: UsageEntry | null;
  /** ISO time of the reply (or of the failure). */
  readonly at: string;
  /** Milliseconds from the first attempt's start to the reply or the last failure. */
  readonly durationMs: number;
  /** Attempts made, the first included. */
  readonly attempts: number;
  /** The caller's role for the call, or null. */
  readonly role?: string | null;
  /**
   * Set when the cost model threw or gave a negative or non-finite cost: says
   * what went wrong; the call then counts 0 in every total and `costUsd` is null.
   */
  readonly costError?: string | null;
  /** The reply's `id` (e.g. `chatcmpl-...`), or null (no reply, or none in it). */
  readonly responseId?: string | null;
  /** The model the reply says answered (`model`), or null (no reply, or none in it). */
  readonly responseModel?: string | null;
  /** The reply's `choices[0].finish_reason`, or null (no reply, or none in it). */
  readonly finishReason?: string | null;
  /** True when the call was streamed (`ChatAdapter.stream`). */
  readonly streamed: boolean;
  /**
   * Streamed calls: milliseconds from the first attempt's start to the first
   * delta (content, reasoning or tool call); null when none arrived or the call
   * was not streamed.
   */
  readonly firstDeltaMs: number | null;
  /** How the call failed, or null when a reply arrived. */
  readonly error?: {
    readonly kind: ChatErrorKind;
    readonly status: number | null;
    readonly degradation: boolean;
  } | null;
}
