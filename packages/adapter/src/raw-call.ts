import { AttemptTracker, notifyAfterCall } from './attempt-tracker.js';
import { newCallId } from './call-identity.js';
import type { CallObserver } from './call-observer.js';
import type { CallRecord, SettlementKind } from './call-record.js';
import type { ChatTransport, TransportRequest } from './chat-transport.js';
import { estimatedUsage, receivedOf } from './estimated-usage.js';
import { messageOfReply } from './message-of-reply.js';
import { isRecord, readField, readString } from './read-field.js';
import { abortedError, untilAborted } from './until-aborted.js';
import { withRequestOverrides } from './with-attempt-overrides.js';

/** What the adapter knows of a raw call once it is over, to make its record. */
export interface CallFacts {
  /** The reply's `usage` when it was a plain object (not yet copied), else null. */
  readonly usage: Record<string, unknown> | null;
  /** What the books record for the call's last attempt, by the one settlement rule (`settlementOf`). */
  readonly settlement: SettlementKind;
  /**
   * With settlement `estimate`: the usage its estimated cost is priced from (never
   * recorded as usage); absent or null otherwise.
   */
  readonly estimatedUsage?: Record<string, unknown> | null;
  /** The reply's `id`, `model` and `choices[0].finish_reason` when strings, else null. */
  readonly responseId: string | null;
  readonly responseModel: string | null;
  readonly finishReason: string | null;
  /** What ended the call, or null when a reply arrived. */
  readonly error: unknown | null;
  readonly at: Date;
  readonly durationMs: number;
  readonly attempts: number;
  /** True for a streamed call; absent means false. */
  readonly streamed?: boolean;
  /** A streamed call's milliseconds to its first delta, or null (none arrived); absent means null. */
  readonly firstDeltaMs?: number | null;
  /** The last attempt's cap as an observer lowered it, or null; absent means null. */
  readonly maxTokensLowered?: CallRecord['maxTokensLowered'];
  /** The budget scopes the attempts were charged to; absent when none. */
  readonly budgets?: CallRecord['budgets'];
  /** The call's id, made when it started (`AttemptInfo.callId`); absent: the record makes one. */
  readonly callId?: string;
}

/** One raw call to make: the transport, its request and who hears about it. */
export interface RawCallSetup {
  readonly transport: ChatTransport;
  /** The request without attempt hooks. */
  readonly request: TransportRequest;
  readonly role: string | null;
  readonly tenant: string | null;
  readonly maxTokens: number | null;
  /** Whether the request asked for JSON mode. */
  readonly jsonObject: boolean;
  /** The request's temperature, or 0 (the raw call's default) when none was given. */
  readonly temperature: number;
  readonly observers: readonly CallObserver[];
  /** Makes (and accounts) the call's record from its setup and facts. Must not throw. */
  readonly record: (setup: RawCallSetup, facts: CallFacts) => CallRecord;
}

/** The reply message of a raw call (not yet read into a response) and its record. */
export interface RawCallResult {
  readonly message: unknown;
  readonly record: CallRecord;
}

/**
 * Makes one raw call (the transport's attempts up to a reply or the last
 * failure) with the observers around each attempt, and one record for it,
 * also when it fails: the failure is rejected after its record is told.
 */
export async function rawCall(setup: RawCallSetup): Promise<RawCallResult> {
  const { transport, request } = setup;
  const signal = request.signal;
  if (signal?.aborted) throw abortedError(signal);
  const tracker = trackerOf(setup, signal);
  const started = performance.now();
  try {
    const reply =
      transport.reportsAttempts === true
        ? await untilAborted(
            send(transport, {
              ...request,
              beforeAttempt: (attempt) => tracker.before(attempt),
              afterAttempt: (attempt, failure, sent) => tracker.after(attempt, failure, sent),
            }),
            signal,
          )
        : await attemptOnce(transport, request, tracker);
    return { message: reply.message, record: endCall(setup, tracker, started, reply, null) };
  } catch (error) {
    endCall(setup, tracker, started, NO_REPLY, error);
    throw error;
  }
}

/** The attempt tracker of one raw call of `setup`, telling observers of `signal`. */
export function trackerOf(setup: RawCallSetup, signal: AbortSignal | undefined): AttemptTracker {
  const { request } = setup;
  return new AttemptTracker(
    {
      callId: newCallId(),
      model: request.model,
      role: setup.role,
      tenant: setup.tenant,
      messages: request.messages,
      tools: request.tools,
      maxTokens: setup.maxTokens,
      signal,
      // The adapter applies a lower cap itself around a transport it calls once per attempt.
      canLowerMaxTokens:
        setup.transport.reportsAttempts !== true || setup.transport.appliesAttemptOverrides === true,
    },
    setup.observers,
  );
}

/** Makes the raw call's record, ends the handles that waited for it and tells the observers. */
function endCall(
  setup: RawCallSetup,
  tracker: AttemptTracker,
  started: number,
  reply: ReplyFacts & { readonly message?: unknown },
  error: unknown | null,
): CallRecord {
  const settlement = tracker.settlement(error, reply.usage);
  const record = setup.record(setup, {
    usage: reply.usage,
    settlement,
    estimatedUsage:
      settlement === 'estimate'
        ? estimatedUsage(setup.request, receivedOf(reply.message, reply.usage))
        : null,
    responseId: reply.responseId,
    responseModel: reply.responseModel,
    finishReason: reply.finishReason,
    error,
    at: new Date(),
    durationMs: performance.now() - started,
    attempts: tracker.attempts,
    ...tracker.recordFacts(),
  });
  tracker.finish(record, error, settlement);
  notifyAfterCall(setup.observers, record);
  return record;
}

// A transport that does not report its attempts is one attempt to the observers.
async function attemptOnce(transport: ChatTransport, request: TransportRequest, tracker: AttemptTracker) {
  const answer = tracker.before(1);
  const overrides = answer === undefined ? undefined : await answer;
  try {
    const reply = await untilAborted(
      send(transport, withRequestOverrides(request, overrides)),
      request.signal,
    );
    tracker.after(1, null);
    return reply;
  } catch (error) {
    tracker.after(1, error);
    throw error;
  }
}

/** What a raw call's record takes from its reply. */
interface ReplyFacts {
  readonly usage: Record<string, unknown> | null;
  readonly responseId: string | null;
  readonly responseModel: string | null;
  readonly finishReason: string | null;
}

const NO_REPLY: ReplyFacts = Object.freeze({
  usage: null,
  responseId: null,
  responseModel: null,
  finishReason: null,
});

async function send(
  transport: ChatTransport,
  request: TransportRequest,
): Promise<ReplyFacts & { message: unknown }> {
  if (typeof transport.completeChatRaw !== 'function') {
    const message = await transport.completeChat(request);
    // A stub's message may carry the finish reason merged in, as completeChat returns it.
    return { ...NO_REPLY, message, finishReason: readString(message, 'finish_reason') ?? null };
  }
  const reply = await transport.completeChatRaw(request);
  const usage = readField(reply, 'usage');
  const message = messageOfReply(reply);
  return {
    message,
    usage: isRecord(usage) ? usage : null,
    responseId: readString(reply, 'id') ?? null,
    responseModel: readString(reply, 'model') ?? null,
    // messageOfReply has already read choices[0].finish_reason (a string) into the message.
    finishReason: readString(message, 'finish_reason') ?? null,
  };
}
