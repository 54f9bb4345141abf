import { type AttemptTracker, notifyAfterCall, notifyAfterChunk } from './attempt-tracker.js';
import type { CallRecord } from './call-record.js';
import { ChatError } from './chat-error.js';
import type { ChatResponse } from './chat-response.js';
import { chatResponseFromMessage } from './chat-response-from-message.js';
import type { ChatDelta, ChatStream } from './chat-stream.js';
import type { TransportRequest, TransportStream, TransportStreamEvent } from './chat-transport.js';
import { estimatedUsage } from './estimated-usage.js';
import { type RawCallSetup, trackerOf } from './raw-call.js';
import { isCount } from './settlement-rule.js';
import { StreamAssembly } from './stream-assembly.js';
import type { StreamBreakPolicy } from './stream-break.js';
import { untilAborted } from './until-aborted.js';
import { withRequestOverrides } from './with-attempt-overrides.js';
import { withCalls } from './with-calls.js';

/** One streamed call to make: a raw call's setup plus what the stream itself decides. */
export interface StreamSetup extends RawCallSetup {
  /** JSON mode: whitespace-only content is held back. */
  readonly jsonObject: boolean;
  /** Retry once, transparently, a JSON-mode stream that ended with only whitespace (unbounded adapters). */
  readonly retryWhitespace: boolean;
  /** The whole call's deadline in milliseconds, or null. */
  readonly deadlineMs: number | null;
  /** The caller's signal, if any. */
  readonly signal: AbortSignal | undefined;
  /** What a stream the caller breaks off does with its connection; absent means `'close'`. */
  readonly onStreamBreak?: StreamBreakPolicy;
  /** With `'drain'`: how long the background read may take, in milliseconds. */
  readonly drainMs?: number;
}

/** The deltas a reader may leave waiting before reading the wire pauses (back-pressure). */
const HIGH_WATER = 64;

const DONE: IteratorResult<ChatDelta> = Object.freeze({ done: true, value: undefined });

/** How long the body may go on after `[DONE]` before the connection is dropped. */
const DRAIN_MS = 1000;

/** What one raw streamed call gave: its assembled reply and record. */
interface RawStreamResult {
  readonly assembly: StreamAssembly;
  readonly record: CallRecord;
}

/** Why the stream stopped early, by the caller's hand or the deadline. */
type StopCause = { readonly kind: 'abort'; readonly reason: unknown } | { readonly kind: 'deadline' };

/**
 * A streamed call (see {@link ChatStream}): reading starts at once; deltas wait
 * in a queue for the iterator (while one is reading, at most {@link HIGH_WATER}
 * before the wire is paused); `response` settles when the stream ends.
 *
 * Retries happen only while nothing was yielded: an attempt that fails before
 * its first delta is made again (the transport counts it against its attempts);
 * after that a failure ends the stream. `abort()`, the caller's signal and
 * leaving a `for await` loop early close the connection at once and reject
 * `response` with kind `aborted`, carrying what arrived.
 */
export class StreamCall implements ChatStream {
  readonly response: Promise<ChatResponse>;

  readonly #setup: StreamSetup;
  readonly #controller = new AbortController();
  #stop: StopCause | null = null;
  #open: TransportStream | null = null;
  #deadline: NodeJS.Timeout | null = null;
  readonly #onCallerAbort = (): void => this.#halt({ kind: 'abort', reason: this.#setup.signal?.reason });

  // The queue of deltas for the iterator.
  #queue: ChatDelta[] = [];
  #head = 0;
  #finished = false;
  #failure: unknown = null;
  #iterating = false;
  #iterated = false;
  #wake: (() => void) | null = null;
  // The first deltas are handed over one by one to a waiting reader (latency); later ones, a read at a time.
  #handOvers = 0;
  #handedOver: (() => void) | null = null;
  #drained: (() => void) | null = null;
  // A stream broken off by the caller and drained: what the iterator ends with at once, the drain's timer.
  #broken: ChatError | null = null;
  #drainTimer: NodeJS.Timeout | null = null;

  // Per call: whether the caller saw a delta, and the JSON-mode whitespace held back.
  #yielded = false;
  #held = '';
  #contentReleased = false;
  #firstDeltaAt: number | null = null;

  constructor(setup: StreamSetup) {
    this.#setup = setup;
    const signal = setup.signal;
    if (signal !== undefined) {
      if (signal.aborted) this.#stop = { kind: 'abort', reason: signal.reason };
      else signal.addEventListener('abort', this.#onCallerAbort, { once: true });
    }
    if (setup.deadlineMs !== null && this.#stop === null) {
      this.#deadline = setTimeout(() => this.#halt({ kind: 'deadline' }), setup.deadlineMs);
    }
    this.response = this.#run();
    // A caller who only iterates (or drops the stream) must not see an unhandled rejection.
    this.response.catch(() => {});
  }

  abort(reason?: unknown): void {
    this.#halt({ kind: 'abort', reason });
  }

  [Symbol.asyncIterator](): AsyncIterator<ChatDelta> {
    if (this.#iterated) throw new TypeError('a ChatStream can be iterated only once');
    this.#iterated = true;
    this.#iterating = true;
    return {
      next: () => this.#next(),
      return: async () => {
        this.#iterating = false;
        if (!this.#finished) this.#halt({ kind: 'abort', reason: 'the for-await loop was left early' });
        this.#release();
        return DONE;
      },
    };
  }

  async #next(): Promise<IteratorResult<ChatDelta>> {
    // The reader is back for more: the delta handed over was handled.
    this.#resumeHandOver();
    for (;;) {
      if (this.#broken !== null) {
        this.#iterating = false;
        throw this.#broken;
      }
      if (this.#head < this.#queue.length) {
        const delta = this.#queue[this.#head] as ChatDelta;
        this.#head += 1;
        if (this.#head === this.#queue.length) {
          this.#queue = [];
          this.#head = 0;
          this.#release();
        }
        return { done: false, value: delta };
      }
      if (this.#finished) {
        this.#iterating = false;
        if (this.#failure !== null) throw this.#failure;
        return DONE;
      }
      await new Promise<void>((resolve) => {
        this.#wake = resolve;
      });
    }
  }

  #push(delta: ChatDelta): void {
    if (this.#firstDeltaAt === null) this.#firstDeltaAt = performance.now();
    this.#yielded = true;
    this.#queue.push(delta);
    this.#wakeReader();
  }

  #wakeReader(): void {
    const wake = this.#wake;
    this.#wake = null;
    wake?.();
  }

  /**
   * Waits until the reader asks for its next delta (it has handled the one woken for), or the
   * event loop's next turn, whichever is first: a reader that stops asking never stalls the stream.
   */
  #handOver(): Promise<void> {
    return new Promise((resolve) => {
      this.#handedOver = resolve;
      setImmediate(resolve);
    });
  }

  #resumeHandOver(): void {
    const handedOver = this.#handedOver;
    this.#handedOver = null;
    handedOver?.();
  }

  #release(): void {
    const drained = this.#drained;
    this.#drained = null;
    drained?.();
  }

  // Back-pressure: only while someone iterates, so awaiting `response` alone never stalls.
  async #backPressure(): Promise<void> {
    while (this.#iterating && this.#queue.length - this.#head >= HIGH_WATER && this.#stop === null) {
      await new Promise<void>((resolve) => {
        this.#drained = resolve;
      });
    }
  }

  #halt(cause: StopCause): void {
    if (this.#stop !== null || this.#finished) return;
    this.#stop = cause;
    // Nothing more reaches the loop once the stream is stopped.
    this.#queue = [];
    this.#head = 0;
    const open = this.#open;
    if (cause.kind === 'abort' && this.#setup.onStreamBreak === 'drain' && open !== null) {
      // The caller is done with it; the connection is read on to the final usage, bounded.
      this.#broken = this.#stopError();
      this.#drainTimer = setTimeout(() => open.close(this.#stopError()), this.#setup.drainMs ?? 30_000);
      this.#wakeReader();
      this.#release();
      return;
    }
    this.#controller.abort(cause.kind === 'abort' ? cause.reason : undefined);
    open?.close(this.#stopError());
    this.#release();
    this.#resumeHandOver();
  }

  /** Whether the stream is being read on after the caller broke it off (`onStreamBreak: 'drain'`). */
  get #draining(): boolean {
    return this.#broken !== null;
  }

  #stopError(): ChatError {
    const model = this.#setup.request.model;
    if (this.#stop?.kind === 'deadline') {
      return new ChatError({
        kind: 'timeout',
        message: `the stream of ${model} passed its deadline of ${this.#setup.deadlineMs} ms (deadlineSeconds)`,
        retryable: false,
      });
    }
    const reason = this.#stop?.kind === 'abort' ? this.#stop.reason : undefined;
    return new ChatError({
      kind: 'aborted',
      message: `the stream of ${model} was aborted`,
      ...(reason === undefined ? {} : { cause: reason }),
    });
  }

  async #run(): Promise<ChatResponse> {
    const records: CallRecord[] = [];
    try {
      let result = await this.#rawStream(records);
      const content = result.assembly.content ?? '';
      const onlyWhitespace =
        this.#setup.jsonObject && content.trim() === '' && result.assembly.message().tool_calls === undefined;
      if (onlyWhitespace && this.#setup.retryWhitespace && !this.#yielded) {
        // JSON mode answered nothing: once more, transparently (the caller saw nothing).
        this.#held = '';
        result = await this.#rawStream(records);
      }
      this.#flushHeld();
      const response = withCalls(chatResponseFromMessage(result.assembly.message()), records);
      this.#end(null);
      return response;
    } catch (error) {
      this.#end(error);
      throw error;
    }
  }

  #end(failure: unknown): void {
    this.#finished = true;
    this.#failure = failure;
    this.#open = null;
    if (this.#deadline !== null) clearTimeout(this.#deadline);
    if (this.#drainTimer !== null) clearTimeout(this.#drainTimer);
    this.#setup.signal?.removeEventListener('abort', this.#onCallerAbort);
    this.#wakeReader();
    this.#release();
  }

  /** JSON mode holds whitespace-only content back until something else arrives. */
  #emit(delta: ChatDelta): void {
    if (this.#setup.jsonObject && !this.#contentReleased) {
      if (delta.type === 'content') {
        // Only the new piece is looked at: what is held is whitespace already (linear, however many pieces).
        if (delta.text.trim() === '') {
          this.#held += delta.text;
          return;
        }
        const text = this.#held + delta.text;
        this.#held = '';
        this.#contentReleased = true;
        this.#push(text === delta.text ? delta : { type: 'content', text });
        return;
      }
      if (delta.type === 'tool_call') this.#flushHeld();
    }
    this.#push(delta);
  }

  #flushHeld(): void {
    if (this.#held === '') return;
    const text = this.#held;
    this.#held = '';
    this.#contentReleased = true;
    this.#push({ type: 'content', text });
  }

  /** One raw call: attempts up to an open stream, read to its end; one record, told to the observers. */
  async #rawStream(records: CallRecord[]): Promise<RawStreamResult> {
    const setup = this.#setup;
    const { transport, request } = setup;
    const tracker = trackerOf(setup, this.#controller.signal);
    const reports = transport.reportsAttempts === true;
    const started = performance.now();
    this.#firstDeltaAt = null;
    let assembly = new StreamAssembly(request.model);
    let retryOf: TransportRequest['retryOf'];
    for (;;) {
      let failure: unknown = null;
      try {
        if (this.#stop !== null) throw this.#stopError();
        await this.#readOne(tracker, reports, assembly, retryOf);
        // A stream drained after the caller broke it off is still broken off.
        if (this.#stop !== null) throw this.#stopError();
      } catch (error) {
        failure = this.#stop !== null ? this.#stopError() : error;
      }
      if (failure === null) {
        const record = this.#endCall(tracker, started, assembly, null);
        records.push(record);
        return { assembly, record };
      }
      const canRetry =
        reports &&
        !this.#yielded &&
        this.#stop === null &&
        ChatError.isInstance(failure) &&
        failure.retryable &&
        tracker.attempts > 0 &&
        this.#openedLast;
      if (canRetry) {
        tracker.retrying(failure);
        retryOf = { attempts: tracker.attempts, failure: failure as ChatError };
        assembly = new StreamAssembly(request.model);
        this.#held = '';
        continue;
      }
      const record = this.#endCall(tracker, started, assembly, failure);
      records.push(record);
      throw this.#withPartial(failure, assembly, records);
    }
  }

  // Whether the last attempt got as far as an open stream (a failure before that was the transport's to
  // retry, and it has given up).
  #openedLast = false;

  async #readOne(
    tracker: AttemptTracker,
    reports: boolean,
    assembly: StreamAssembly,
    retryOf: TransportRequest['retryOf'],
  ): Promise<void> {
    const { transport, request } = this.#setup;
    if (typeof transport.streamChatRaw !== 'function') throw new TypeError('the transport cannot stream');
    const signal = this.#controller.signal;
    this.#openedLast = false;
    const base: TransportRequest = { ...request, signal };
    let stream: TransportStream;
    let failure: unknown = null;
    if (reports) {
      stream = await opened(
        transport.streamChatRaw({
          ...base,
          beforeAttempt: (attempt) => tracker.before(attempt),
          // `sent` false: the request never went on the wire, so the attempt cannot have been billed.
          afterAttempt: (attempt, attemptFailure, sent) => tracker.after(attempt, attemptFailure, sent),
          ...(retryOf === undefined ? {} : { retryOf }),
        }),
        signal,
      );
    } else {
      const answer = tracker.before(1);
      const overrides = answer === undefined ? undefined : await answer;
      try {
        stream = await opened(transport.streamChatRaw(withRequestOverrides(base, overrides)), signal);
      } catch (error) {
        tracker.after(1, error);
        throw error;
      }
    }
    this.#openedLast = true;
    this.#open = stream;
    try {
      if (this.#stop !== null && !this.#draining) throw this.#stopError();
      await this.#readEvents(stream, assembly, tracker);
      stream.close();
    } catch (error) {
      failure = this.#stop !== null && !this.#draining ? this.#stopError() : error;
      stream.close(failure);
      throw failure;
    } finally {
      this.#open = null;
      if (!reports) tracker.after(1, failure);
    }
  }

  async #readEvents(
    stream: TransportStream,
    assembly: StreamAssembly,
    tracker: AttemptTracker,
  ): Promise<void> {
    const deltas: ChatDelta[] = [];
    const iterator = stream[Symbol.asyncIterator]();
    // The events one read of the body gave are taken in one run, without a promise (and a turn) each
    // (from any stream that offers them so: a recorder wrapping the body's passes them through).
    const buffered =
      typeof stream.takeBuffered === 'function'
        ? (stream as TransportStream & Required<Pick<TransportStream, 'takeBuffered'>>)
        : null;
    let output = false;
    // When the previous chunk was done with (its deltas handed over, back-pressure over): the time
    // per output chunk is measured from there, so a slow reader does not count as a slow provider.
    let previousChunkEnd: number | null = null;
    const { observers, request, role } = this.#setup;
    // Without observers no one is told of a chunk: its clock is not read.
    const timed = observers.length > 0;
    for (;;) {
      let event = buffered?.takeBuffered();
      if (event === undefined) {
        const next = await iterator.next();
        if (this.#stop !== null && !this.#draining) throw this.#stopError();
        if (next.done) break;
        event = next.value;
      } else if (this.#stop !== null && !this.#draining) throw this.#stopError();
      if (!('data' in event)) continue;
      if (assembly.accept(event.data, event.event, deltas) === 'done') {
        // The reply is whole: whatever the drain meets after `[DONE]` does not unmake it.
        tracker.replyWhole();
        await this.#drain(iterator);
        return;
      }
      if (!output) {
        // A chunk arrived: from here on the attempt is never settled as free.
        output = true;
        tracker.outputArrived();
      }
      if (deltas.length > 0) {
        // A drained stream's deltas reach no one: only its usage is wanted.
        if (!this.#draining) {
          if (previousChunkEnd !== null && timed) {
            const sinceLastChunkMs = performance.now() - previousChunkEnd;
            notifyAfterChunk(observers, { model: request.model, role, sinceLastChunkMs });
          }
          // A reader waiting for the stream's first deltas gets each before the rest of its read is taken.
          const handOver = this.#wake !== null && this.#handOvers < HIGH_WATER;
          for (const delta of deltas) this.#emit(delta);
          if (handOver && this.#wake === null) {
            this.#handOvers += 1;
            await this.#handOver();
          }
        }
        // Most chunks carry one delta: popping it is cheaper than setting the length.
        if (deltas.length === 1) deltas.pop();
        else deltas.length = 0;
        if (this.#iterating && this.#queue.length - this.#head >= HIGH_WATER && this.#stop === null) {
          await this.#backPressure();
        }
        previousChunkEnd = timed ? performance.now() : 0;
      }
    }
    // A body that ended without `[DONE]` is whole only when its finish reason came.
    if (assembly.finishReason === null) {
      throw new ChatError({
        kind: 'connection',
        message: `the stream of ${this.#setup.request.model} ended before its last event`,
        retryable: true,
      });
    }
  }

  /**
   * After `[DONE]` the body is read to its end (the server ends it at once), as
   * the `openai` SDK does, so the connection goes back to the pool instead of
   * being dropped; a server that keeps it open gets {@link DRAIN_MS}, then it is
   * dropped. Anything after `[DONE]` is ignored, and so is a failure there: the
   * reply was whole.
   */
  async #drain(iterator: AsyncIterator<TransportStreamEvent>): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const grace = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, DRAIN_MS);
    });
    const drained = (async () => {
      for (let next = await iterator.next(); !next.done; next = await iterator.next()) {
        if (this.#stop !== null) return;
      }
    })().catch(() => {});
    await Promise.race([drained, grace]);
    clearTimeout(timer);
  }

  #endCall(
    tracker: AttemptTracker,
    started: number,
    assembly: StreamAssembly,
    error: unknown | null,
  ): CallRecord {
    const setup = this.#setup;
    const usage = assembly.finalUsage;
    const settlement = tracker.settlement(error, usage);
    const prompt = assembly.usage?.prompt_tokens;
    const record = setup.record(setup, {
      usage,
      settlement,
      estimatedUsage:
        settlement === 'estimate'
          ? estimatedUsage(setup.request, {
              bytes: assembly.outputBytes,
              pieces: assembly.pieces,
              promptTokens: isCount(prompt) ? prompt : null,
            })
          : null,
      responseId: assembly.responseId,
      responseModel: assembly.responseModel,
      finishReason: assembly.finishReason,
      error,
      at: new Date(),
      durationMs: performance.now() - started,
      attempts: tracker.attempts,
      streamed: true,
      firstDeltaMs: this.#firstDeltaAt === null ? null : this.#firstDeltaAt - started,
      ...tracker.recordFacts(),
    });
    tracker.finish(record, error, settlement);
    notifyAfterCall(setup.observers, record);
    return record;
  }

  // A failure after output arrived carries it; one before keeps its own class (a model rejection, say).
  #withPartial(failure: unknown, assembly: StreamAssembly, records: CallRecord[]): unknown {
    if (!ChatError.isInstance(failure) || !this.#yielded) return failure;
    return new ChatError({
      kind: failure.kind,
      status: failure.status,
      message: failure.message,
      cause: failure,
      retryable: false,
      ...(failure.retryAfterSeconds === undefined ? {} : { retryAfterSeconds: failure.retryAfterSeconds }),
      partial: withCalls(chatResponseFromMessage(assembly.message()), [...records]),
    });
  }
}

/**
 * The stream a transport opens, or a rejection with kind `aborted` as soon as
 * `signal` fires (a transport may ignore it); a stream that opens after that
 * is closed at once, so its connection is never left behind.
 */
async function opened(opening: Promise<TransportStream>, signal: AbortSignal): Promise<TransportStream> {
  try {
    return await untilAborted(opening, signal);
  } catch (error) {
    if (signal.aborted)
      opening.then(
        (late) => late.close(error),
        () => {},
      );
    throw error;
  }
}
