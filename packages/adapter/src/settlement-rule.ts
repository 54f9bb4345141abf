import type { SettlementKind } from './call-record.js';
import { mayHaveBeenBilled } from './may-have-been-billed.js';
import { isRecord } from './read-field.js';

/** How one attempt (or a raw call's last attempt) ended, as the settlement rule reads it. */
export interface AttemptEnd {
  /** What ended it, or null when its reply was read whole (a plain reply, or a stream to its end). */
  readonly failure: unknown | null;
  /** False when the transport knows the request never went on the wire; undefined when it cannot tell. */
  readonly sent?: boolean | undefined;
  /** Whether any output arrived: a stream's chunk, or a plain reply's body read whole. */
  readonly outputArrived: boolean;
  /**
   * The usage that may settle it: a whole reply's, or a stream's final one (see
   * `StreamAssembly.finalUsage`), else null. Only a {@link trustedUsage} settles exactly.
   */
  readonly usage: unknown;
}

/**
 * THE settlement rule: what the books record for one attempt, from how it ended.
 * Every path — plain, streamed, retried, cut, an error after output, an odd usage,
 * bytes after `[DONE]`, a replay — goes through it:
 *
 * - `exact`: the reply was read whole and its usage is trusted;
 * - `estimate`: output arrived, but no trusted usage says what it cost (an odd or
 *   missing usage, a stream cut or failed after output): never free;
 * - `none`: it provably never reached the provider (never sent, refused before
 *   sending, connection refused, an HTTP error status before any output);
 * - `unsettled`: anything else (a timeout, a connection lost after sending).
 */
export function settlementOf(end: AttemptEnd): SettlementKind {
  if (end.failure === null || end.failure === undefined) {
    return trustedUsage(end.usage) ? 'exact' : 'estimate';
  }
  if (end.outputArrived) return 'estimate';
  return mayHaveBeenBilled(end.failure, end.sent) ? 'unsettled' : 'none';
}

/** The token counts a price reads. */
const COUNTS = ['prompt_tokens', 'completion_tokens', 'prompt_cache_hit_tokens', 'prompt_cache_miss_tokens'];
/** Counts whose presence makes a usage say what a call cost (a total alone does not split input from output). */
const BILLING_COUNTS = ['prompt_tokens', 'completion_tokens'];

/**
 * Whether a usage may settle a call exactly: a plain object holding `prompt_tokens` or
 * `completion_tokens`, and every token count it holds (`total_tokens`, the cache split and
 * the details' `cached_tokens` / `reasoning_tokens` included) a finite number >= 0. `{}`,
 * counts as strings, `input_tokens`/`output_tokens` alone, `total_tokens` alone and negative
 * or infinite counts are not trusted: such a call is estimated, never priced at $0.
 */
export function trustedUsage(usage: unknown): boolean {
  if (!isRecord(usage)) return false;
  for (const field of [...COUNTS, 'total_tokens']) {
    if (!absentOrCount(usage[field])) return false;
  }
  if (!absentOrCount(detail(usage.prompt_tokens_details, 'cached_tokens'))) return false;
  if (!absentOrCount(detail(usage.completion_tokens_details, 'reasoning_tokens'))) return false;
  return BILLING_COUNTS.some((field) => usage[field] !== undefined && usage[field] !== null);
}

function detail(details: unknown, field: string): unknown {
  return isRecord(details) ? details[field] : undefined;
}

function absentOrCount(value: unknown): boolean {
  return value === undefined || value === null || isCount(value);
}

/** A token count: a finite number >= 0. */
export function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0;
}
