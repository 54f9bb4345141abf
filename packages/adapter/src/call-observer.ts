import type { CallRecord, ChargedScope, SettlementKind } from './call-record.js';
import type { ChatError } from './chat-error.js';

/** What an observer is told before an attempt goes on the wire. */
export interface AttemptInfo {
  /** The model id as sent. */
  readonly model: string;
  /** 1-based attempt number within the raw call. */
  readonly attempt: number;
  /**
   * The raw call's id, the same for each of its attempts and its record's `callId` (see
   * {@link CallRecord.callId}). Always set by this adapter; absent from an older one.
   */
  readonly callId?: string;
  /** The caller's role, or null. */
  readonly role: string | null;
  /**
   * The call's tenant (the request's own `tenant`, else a `forTenant` view's), or null when it
   * carries none. Always set by this adapter; absent from an older one or from an info made by
   * hand, which an observer reads as null.
   */
  readonly tenant?: string | null;
  /** The request body's messages and tools, for estimating prompt tokens; never copied. */
  readonly messages: readonly unknown[];
  readonly tools: readonly unknown[] | undefined;
  /** The answer cap sent as `max_tokens` (a bounded copy's, or the request's), or null. */
  readonly maxTokens: number | null;
  /** The caller's cancellation signal, if any: a wait for a slot should end with it. */
  readonly signal: AbortSignal | undefined;
  /**
   * True when the adapter sends a lower cap an observer's handle gives
   * ({@link AttemptHandle.maxTokens}) as this attempt's `max_tokens`: always around a
   * transport that does not report its attempts, and around one that does only when it
   * applies them (`ChatTransport.appliesAttemptOverrides`). Absent or false: a handle's
   * cap is ignored, so an observer must not count on it.
   */
  readonly canLowerMaxTokens?: boolean;
}

/** How one attempt ended, told to the handle its observer returned. */
export interface AttemptOutcome {
  /**
   * The raw call's record when this attempt's reply was read (also when the call then failed but
   * settles exactly: a drained stream the caller broke off); null when it failed.
   */
  readonly record: CallRecord | null;
  /**
   * What ended the attempt when it failed, else null: a `ChatError` from the
   * transport or an observer's refusal, or whatever `Error` a stub transport threw
   * (a thrown non-Error value is wrapped in an `Error` with it as `cause`).
   */
  readonly error: ChatError | Error | null;
  /**
   * Whether the provider may have billed this attempt. True when a reply was read,
   * and when the attempt failed after its request may have reached the provider
   * with no reply saying what it cost (a timeout, a connection lost after sending,
   * a reply cut short or unreadable). False only when it provably cost nothing: it
   * was never sent (connection refused, refused by an observer, aborted before
   * sending) or the provider answered with an HTTP error status. A budget settles
   * an attempt that may have been billed and has no cost at its worst case.
   */
  readonly mayHaveBeenBilled: boolean;
  /**
   * What the books record for this attempt, from the one settlement rule (see
   * {@link SettlementKind}): `exact` settles at the record's cost; `estimate` and
   * `unsettled` at the attempt's worst case, unsettled; `none` releases it.
   * `mayHaveBeenBilled` is `settlement !== 'none'`. Always set by this adapter; a
   * handle should still read an outcome without it (an older adapter) from the fields above.
   */
  readonly settlement?: SettlementKind;
}

/**
 * One chunk of a streamed reply after its first, told to `afterChunk`: the time the client
 * waited for it, from the end of the previous chunk (its deltas handed to the stream, and any
 * back-pressure from a slow reader over) to this one's arrival. A chunk is one event of the
 * stream that carried output (content, reasoning or a tool call).
 */
export interface OutputChunk {
  /** The model id as sent. */
  readonly model: string;
  /** The caller's role, or null. */
  readonly role: string | null;
  /** Milliseconds from the end of the previous chunk to this one's arrival. */
  readonly sinceLastChunkMs: number;
}

/** Returned by `beforeAttempt` to learn how that attempt ended (settle or release a lease). */
export interface AttemptHandle {
  /** Called exactly once per attempt. Must not throw; an error it throws is ignored. */
  end(outcome: AttemptOutcome): void | Promise<void>;
  /**
   * A lower answer cap for this attempt (a budget fitting the call to what is left): when
   * the attempt's info said `canLowerMaxTokens` and this is a positive integer below the
   * cap it would send (or it would send none), the attempt goes out with `max_tokens` set
   * to it, and the record says so (`CallRecord.maxTokensLowered`). Never raises a cap.
   * Observers after this one are told the lowered cap.
   */
  readonly maxTokens?: number;
  /** The budget scopes this attempt was charged to, with their limits: the record's `budgets`. */
  readonly budgets?: readonly ChargedScope[];
}

/**
 * The endpoint an observer watches, as `resolveChatEndpoint` tells it: never a key.
 * `provider` is the endpoint kind (`primary`, `gateway`, `custom`, `scripted`).
 */
export interface ObservedEndpoint {
  readonly provider: string;
  /** The base address, without credentials. */
  readonly baseUrl: string;
  readonly thinking: boolean;
  /**
   * The vendor as the OpenTelemetry GenAI conventions list it (`gen_ai.provider.name`),
   * when the configuration named one (`[telemetry] provider_name`); else null.
   */
  readonly providerName: string | null;
}

/**
 * A plug-in of the adapter's two places: before each attempt (may wait, or refuse
 * by throwing a `ChatError`, e.g. kind `budget`) and after each raw call (record).
 * Meters, journals, telemetry, budgets and concurrency gates are observers.
 */
export interface CallObserver {
  beforeAttempt?(attempt: AttemptInfo): void | AttemptHandle | Promise<void | AttemptHandle>;
  /** Called once per raw call, after its reply or its last failure. Must not throw; errors are ignored. */
  afterCall?(record: CallRecord): void;
  /**
   * Called for each chunk of a streamed reply after the first (see {@link OutputChunk}), as it
   * arrives: an OpenTelemetry observer records the time per output chunk from it. Must not
   * throw and should return at once: it runs between the chunks. Errors are ignored.
   */
  afterChunk?(chunk: OutputChunk): void;
  /**
   * Called by `resolveChatEndpoint` before it attaches the observer to the adapter it
   * resolved: returns the observer to attach for calls to `endpoint` (itself, or a copy
   * that knows the endpoint). An observer that already has an endpoint keeps its own.
   */
  withEndpoint?(endpoint: ObservedEndpoint): CallObserver;
}
