import {
  type AttemptOverrides,
  ChatError,
  type ChatTransport,
  type CostModel,
  type TransportRequest,
  withRequestOverrides,
} from '@switchboard/adapter';
import { ArrivedEvents } from './arrived-events.js';
import { appliesOverrides, isThenable } from './attempt-overrides.js';
import { pricingOf } from './call-pricing.js';
import type { CassetteEntry, RecordedAttempt, RecordedError, RecordedReply } from './cassette-entry.js';
import type { CassetteWriter } from './cassette-writer.js';
import { cleanEntry } from './clean-entry.js';
import { currentTestFile } from './current-test-file.js';
import { recordedError } from './recorded-error.js';
import { type SecretRules, scrubString } from './secret-scan.js';
import type { StreamEvent, StreamingTransport, TransportEventStream } from './transport-stream.js';
import { wireBody } from './wire-body.js';

/** Where and how calls are recorded. */
export interface RecordContext {
  readonly writer: CassetteWriter;
  /** Whether the calls carry a key; null when unknown. */
  readonly keyPresent: boolean | null;
  /** Prices each reply as the adapter will, for the cassette to carry; null: none. */
  readonly costModel: () => CostModel | null;
  /** Told of every entry written. */
  readonly onEntry?: (entry: CassetteEntry) => void;
  /** How many calls the cassette held before this recorder's (pass-through numbering); default 0. */
  readonly calls?: () => number;
}

/** Response headers a recorded stream keeps; every other header is dropped. */
const HEADER_ALLOWLIST = new Set(['content-type', 'retry-after', 'retry-after-ms', 'x-request-id']);
// Failures that say nothing about the provider: the caller's own, or refusals before sending.
const NOT_RECORDED = new Set(['aborted', 'budget', 'cassette_miss']);

/** One call's attempts, seen through the request's `afterAttempt` hook (or as one attempt). */
class CallTrace {
  readonly started = performance.now();
  readonly attempts: RecordedAttempt[] = [];
  /** The request handed to the wrapped transport: the caller's, its attempt hooks watched. */
  readonly request: TransportRequest;
  readonly #original: TransportRequest;
  readonly #reports: boolean;
  readonly #rules: SecretRules;
  #open = false;
  /** What the first attempt's `beforeAttempt` answered (a lower cap), once it answered. */
  #first: { readonly overrides: AttemptOverrides | undefined } | null = null;

  /** `transport` makes the call: its attempts are watched when it reports them. */
  constructor(request: TransportRequest, transport: ChatTransport, rules: SecretRules) {
    this.#original = request;
    this.#reports = transport.reportsAttempts === true;
    this.#rules = rules;
    const before = request.beforeAttempt;
    this.request = this.#reports
      ? {
          ...request,
          // A transport that applies overrides sends its attempts with the cap a budget fitted
          // them to: the first attempt's is the request recorded (replay matches it so).
          ...(before !== undefined && appliesOverrides(transport)
            ? { beforeAttempt: (attempt: number) => this.#watch(before(attempt)) }
            : {}),
          afterAttempt: (attempt, failure, sent) => {
            // A stream's opening attempt ends with the stream: it was recorded when the stream opened.
            if (!this.#open) this.#push(failure);
            request.afterAttempt?.(attempt, failure, sent);
          },
        }
      : request;
  }

  /**
   * The request as its first attempt was sent: with `max_tokens` lowered when that
   * attempt's `beforeAttempt` lowered it (a transport that does not report attempts was
   * given the lowered request by the adapter already).
   */
  get sent(): TransportRequest {
    return withRequestOverrides(this.#original, this.#first?.overrides);
  }

  /** Keeps the first answer of `beforeAttempt`; answers it as it came (at once when it came at once). */
  #watch<T>(answer: T): T {
    if (this.#first !== null) return answer;
    if (!isThenable<AttemptOverrides | undefined>(answer)) {
      this.#first = { overrides: (answer ?? undefined) as AttemptOverrides | undefined };
      return answer;
    }
    return Promise.resolve(answer).then((overrides) => {
      if (this.#first === null) this.#first = { overrides: overrides ?? undefined };
      return overrides;
    }) as T;
  }

  elapsed(): number {
    return Math.round(performance.now() - this.started);
  }

  /** The call ended with a reply (error null) or a failure; a reporting transport has told every attempt. */
  end(error: unknown | null): void {
    if (!this.#reports) this.#push(error);
  }

  /** A stream opened: its attempt counts as a reply from now on. */
  opened(): void {
    if (this.#reports) this.#push(null);
    else this.end(null);
    this.#open = true;
  }

  #push(failure: unknown | null): void {
    this.attempts.push({
      ms: this.elapsed(),
      error: failure === null ? null : recordedError(failure, this.#rules),
    });
  }
}

function write(
  context: RecordContext,
  request: TransportRequest,
  streamed: boolean,
  trace: CallTrace,
  reply: RecordedReply,
  usage: unknown,
  arrived?: ArrivedEvents,
): CassetteEntry {
  const writer = context.writer;
  const test = currentTestFile();
  const entry = writer.write(
    cleanEntry(
      writer.path,
      {
        ...(test === null ? {} : { test }),
        key: context.keyPresent,
        streamed,
        // The body as the first attempt sent it (a cap a budget lowered included); timeout and model as asked.
        request: wireBody(trace.sent, streamed),
        timeoutSeconds: request.timeoutSeconds,
        attempts: trace.attempts,
        reply,
        ms: trace.elapsed(),
        pricing: pricingOf(context.costModel(), request.model, usage),
      },
      writer.rules,
      arrived,
    ),
    context.calls?.() ?? 0,
  );
  context.onEntry?.(entry);
  return entry;
}

function recordsFailure(error: unknown, trace: CallTrace): boolean {
  return !(ChatError.isInstance(error) && NOT_RECORDED.has(error.kind)) && trace.attempts.length > 0;
}

/** Makes a plain call through `transport` and records it, reply or failure; resolves or rejects as the call did. */
export async function recordPlainCall(
  context: RecordContext,
  transport: ChatTransport,
  request: TransportRequest,
): Promise<unknown> {
  const trace = new CallTrace(request, transport, context.writer.rules);
  let body: unknown;
  try {
    body =
      typeof transport.completeChatRaw === 'function'
        ? await transport.completeChatRaw(trace.request)
        : // A transport without the raw path: its message is recorded as the reply's only choice.
          { choices: [{ index: 0, message: await transport.completeChat(trace.request) }] };
  } catch (error) {
    trace.end(error);
    if (recordsFailure(error, trace)) {
      write(context, request, false, trace, { error: recordedError(error, context.writer.rules) }, null);
    }
    throw error;
  }
  trace.end(null);
  const usage = typeof body === 'object' && body !== null ? (body as { usage?: unknown }).usage : null;
  write(context, request, false, trace, { body }, usage);
  return body;
}

/** Opens a stream through `transport`; the stream records every event and is written when it ends. */
export async function recordStreamCall(
  context: RecordContext,
  transport: ChatTransport & StreamingTransport,
  request: TransportRequest,
): Promise<TransportEventStream> {
  if (typeof transport.streamChatRaw !== 'function') {
    throw new TypeError('this transport cannot stream: it has no streamChatRaw(request) method');
  }
  const trace = new CallTrace(request, transport, context.writer.rules);
  let stream: TransportEventStream;
  try {
    stream = await transport.streamChatRaw(trace.request);
  } catch (error) {
    trace.end(error);
    if (recordsFailure(error, trace)) {
      write(context, request, true, trace, { error: recordedError(error, context.writer.rules) }, null);
    }
    throw error;
  }
  trace.opened();
  return new RecordingStream(stream, context.writer.rules, (arrived, end) => {
    const reply = {
      status: stream.status,
      headers: keptHeaders(stream.headers, context.writer.rules),
      // Made whole only when something reads them (a line to scrub); a clean one is written from `arrived`.
      get events() {
        return arrived.recorded;
      },
      end,
    };
    write(context, request, true, trace, reply, arrived.usage(), arrived);
  });
}

function keptHeaders(headers: Readonly<Record<string, string>>, rules: SecretRules): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const name of Object.keys(headers).sort()) {
    const lower = name.toLowerCase();
    if (HEADER_ALLOWLIST.has(lower) || lower.startsWith('x-ratelimit-')) {
      kept[lower] = scrubString(String(headers[name]), rules);
    }
  }
  return kept;
}

/**
 * A stream passed through as it is, each event recorded with its delay. It is
 * written when it ends: at its `[DONE]` event (before the reader gets it) or at
 * its end. A refused write (a secret) fails the stream there, so the call fails
 * as a plain call's does, instead of resolving with its line missing. Events the
 * wrapped stream already read are passed on without a promise each
 * (`takeBuffered`), as the adapter reads a stream it opened itself.
 */
class RecordingStream implements TransportEventStream {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly #inner: TransportEventStream;
  readonly #finish: (events: ArrivedEvents, end: RecordedError | null) => void;
  readonly #rules: SecretRules;
  readonly #events = new ArrivedEvents();
  #last = performance.now();
  /** The clock read for the events taken in this run of the event loop (null: read it at the next). */
  #stamp: number | null = null;
  readonly #unstamp = () => {
    this.#stamp = null;
  };
  #finished = false;

  constructor(
    inner: TransportEventStream,
    rules: SecretRules,
    finish: (events: ArrivedEvents, end: RecordedError | null) => void,
  ) {
    this.#inner = inner;
    this.#rules = rules;
    this.status = inner.status;
    this.headers = inner.headers;
    this.#finish = finish;
    if (typeof inner.takeBuffered !== 'function') this.takeBuffered = undefined;
  }

  close(failure?: unknown): void {
    this.#inner.close(failure);
    try {
      this.#end(null);
    } catch {
      // Closed before its end (the caller broke it off): the call already fails, a refused line with it.
    }
  }

  takeBuffered?(): StreamEvent | undefined {
    let event: StreamEvent | undefined;
    try {
      event = this.#inner.takeBuffered?.();
    } catch (error) {
      this.#end(recordedError(error, this.#rules));
      throw error;
    }
    if (event !== undefined) this.#take(event);
    return event;
  }

  async *[Symbol.asyncIterator](): AsyncIterator<StreamEvent> {
    let failure: unknown = null;
    try {
      for await (const event of this.#inner) {
        this.#take(event);
        yield event;
      }
    } catch (error) {
      failure = error;
      this.#end(recordedError(error, this.#rules));
      throw error;
    } finally {
      if (failure === null) this.#end(null);
    }
  }

  /** Records one event with its delay; at `[DONE]` the reply is whole: written now, so a refusal still reaches the reader. */
  #take(event: StreamEvent): void {
    // One clock read for the events taken together (a read of the wire hands over hundreds at once).
    let now = this.#stamp;
    if (now === null) {
      now = performance.now();
      this.#stamp = now;
      queueMicrotask(this.#unstamp);
    }
    if (!this.#finished) this.#events.take(Math.round(now - this.#last), event);
    this.#last = now;
    if ('data' in event && event.data === '[DONE]') this.#end(null);
  }

  /** Writes the recording once; throws what the write threw (a refused line). */
  #end(end: RecordedError | null): void {
    if (this.#finished) return;
    this.#finished = true;
    this.#finish(this.#events, end);
  }
}
