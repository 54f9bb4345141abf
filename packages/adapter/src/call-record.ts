import type { ChatErrorKind } from './chat-error-kind.js';
import type { CallPricing } from './cost-model.js';
import type { FinishReason } from './finish-reason.js';
import type { UsageEntry } from './usage-entry.js';

/**
 * What the books record for a call's last attempt, from the one settlement rule
 * (`settlementOf`): `exact` — a trusted final usage priced it; `estimate` — output
 * arrived but no trusted usage: the cost is a lower bound from what was received
 * (marked `priceSource: 'estimate'`) and a budget keeps the attempt's worst case,
 * unsettled; `unsettled` — the request may have reached the provider and nothing
 * says what it cost (no cost; a budget keeps the worst case); `none` — it provably
 * never reached the provider (refused before sending, connection refused, or an
 * HTTP error status before any output byte).
 */
export type SettlementKind = 'exact' | 'estimate' | 'unsettled' | 'none';

/** A budget scope a call was charged to, as `CallRecord.budgets` lists it. */
export interface ChargedScope {
  /** The scope's path, e.g. `run-42/judge`. */
  readonly scope: string;
  /** Its spend limit in USD, or null when it has none. */
  readonly limitUsd: number | null;
}

/**
 * One raw call (a request and its retries, up to its reply or its last failure),
 * made by the adapter once per raw call. Records are frozen plain data: safe to
 * journal (never a key, never message content) and to sum.
 */
export interface CallRecord extends CallPricing {
  /**
   * The call's id, unique to it: a random UUID made when the raw call starts, the same for
   * each of its attempts (retries; `AttemptInfo.callId`) and for a stream from its
   * first event to its end. The empty-JSON retry is a raw call of its own, with its own id.
   * Always set by this adapter; absent from records made by hand or by an older adapter.
   */
  readonly callId?: string;
  /** The host name of the process that made the call (`os.hostname()`); set as `callId` is. */
  readonly host?: string;
  /** The id of the process that made the call (`process.pid`); set as `callId` is. */
  readonly pid?: number;
  /** The model id as sent. */
  readonly model: string;
  /** A plain, frozen copy of the reply's `usage`, or null (no reply, or none in it). */
  readonly usage: UsageEntry | null;
  /** ISO time of the reply (or of the failure). */
  readonly at: string;
  /** Milliseconds from the first attempt's start to the reply or the last failure. */
  readonly durationMs: number;
  /**
   * Requests that reached the wire, retries included: 0 when the call was refused
   * before anything was sent (e.g. by a budget's `beforeAttempt`).
   */
  readonly attempts: number;
  /**
   * What the call cost in whole nano-dollars (1e-9 USD): the cost model's figure
   * rounded to the nearest, so `costUsd === costNanoUsd / 1e9` exactly and sums of
   * records are exact; null when the call was not priced.
   */
  readonly costNanoUsd: number | null;
  /** The caller's role for the call, or null. */
  readonly role?: string | null;
  /**
   * The call's tenant (the request's own `tenant`, else a `forTenant` view's), or null when it
   * carried none. Always set by this adapter; absent from records made by hand or by an older
   * adapter, which readers take as null. Plain data on the record and journal line, never a key.
   */
  readonly tenant?: string | null;
  /**
   * Whether the request asked for JSON mode (`response_format: {type: 'json_object'}`);
   * OpenTelemetry reports it as `gen_ai.output.type = json`.
   */
  readonly jsonObject?: boolean;
  /**
   * The answer cap sent as `max_tokens` (the request's, or a bounded copy's, or the lower
   * one an observer fitted the last attempt to), or null when none was sent.
   */
  readonly maxTokens?: number | null;
  /**
   * Set when an observer lowered the last attempt's answer cap (a budget with
   * `fitMaxTokens` fitting the call to what was left): `from` the cap the call asked for
   * (null: it sent none), `to` the one sent. Null or absent: the cap was not lowered.
   */
  readonly maxTokensLowered?: { readonly from: number | null; readonly to: number } | null;
  /**
   * The budget scopes the call's attempts were charged to, root first, each with its limit
   * (what `switchboard report --verify` checks a journal's settled spend against); absent
   * when no budget observed the call.
   */
  readonly budgets?: readonly ChargedScope[];
  /**
   * The sampling temperature of the request: the caller's, or 0, the raw call's own default
   * when the caller gave none.
   */
  readonly temperature?: number;
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
  readonly finishReason?: FinishReason | null;
  /** True when the call was streamed (`ChatAdapter.stream`). */
  readonly streamed: boolean;
  /**
   * Streamed calls: milliseconds from the first attempt's start to the first
   * delta (content, reasoning or tool call); null when none arrived or the call
   * was not streamed.
   */
  readonly firstDeltaMs: number | null;
  /**
   * What the books record for the call's last attempt (see {@link SettlementKind}). Always
   * set by this adapter; absent from records made by hand or by an older adapter, which
   * readers derive it for (a priced record `exact`, an `estimate` price `estimate`, …).
   */
  readonly settlement?: SettlementKind;
  /** How the call failed, or null when a reply arrived. */
  readonly error?: {
    readonly kind: ChatErrorKind;
    readonly status: number | null;
    readonly degradation: boolean;
  } | null;
}
