import type { CallAttempt } from './call-attempt.js';
import { ChatError } from './chat-error.js';
import type { TransportStream, TransportStreamEvent } from './chat-transport.js';
import { redact, redactError } from './redact.js';
import { EventTooLargeError, SseParser } from './sse-parser.js';
import { describeCall } from './to-chat-error.js';
import type { BodyChunk, BodyReader, WireReply } from './wire-reply.js';

/** How an {@link SseStream} reads its body. */
export interface SseStreamOptions {
  /** The most text one event may hold. */
  readonly maxEventBytes: number;
  /** The most bytes the whole body may hold, counted after fetch undid any `Content-Encoding`. */
  readonly maxReplyBytes: number;
  /** The caller's signal: closes the connection at once. */
  readonly signal: AbortSignal | undefined;
  /** When the attempt started (`performance.now()`): the first event is due within the timeout of it. */
  readonly startedAt: number;
  /** Told once, when the stream ends: null when the body ended or `close()` was called without a failure. */
  readonly onEnd: (failure: unknown | null) => void;
}

const DONE: IteratorResult<TransportStreamEvent> = Object.freeze({ done: true, value: undefined });

/** How many events of a stream are parsed one at a time (the first delta comes among them). */
const ONE_AT_A_TIME = 64;

/**
 * The open body of a 2xx streamed reply, read as Server-Sent Events with
 * {@link SseParser}. An idle timer bounds the wait for the first event (from the
 * attempt's start) and every gap after one (from when the caller asked for the
 * next event, so a slow caller is never taken for a silent server): the
 * attempt's timeout each. The body and each event are capped. Any failure
 * drops the connection and rejects `next()` with a typed {@link ChatError}.
 */
export class SseStream implements TransportStream {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;

  readonly #attempt: CallAttempt;
  readonly #reader: BodyReader | null;
  readonly #parser: SseParser;
  readonly #options: SseStreamOptions;
  readonly #timeoutMs: number;
  #events: TransportStreamEvent[] = [];
  #next = 0;
  #bytes = 0;
  #count = 0;
  // The body ended (its events may still wait); the stream ended (reported to onEnd once).
  #bodyDone = false;
  #closed = false;
  #failure: ChatError | null = null;
  // The idle clock: when the wait for the next event began, and whether that wait is on.
  #waitingSince: number;
  #waiting = false;
  #timer: NodeJS.Timeout | null = null;
  readonly #onAbort = (): void => {
    const signal = this.#options.signal as AbortSignal;
    this.#fail(
      new ChatError({
        kind: 'aborted',
        message: `${describeCall(this.#attempt.context)}: cancelled by the caller's signal`,
        ...(signal.reason === undefined
          ? {}
          : { cause: redactError(signal.reason, this.#attempt.context.apiKey) }),
      }),
    );
  };

  constructor(response: WireReply, attempt: CallAttempt, options: SseStreamOptions) {
    this.status = response.status;
    this.headers = Object.freeze(Object.fromEntries(response.headers));
    this.#attempt = attempt;
    this.#reader = response.body?.getReader() ?? null;
    this.#parser = new SseParser(options.maxEventBytes);
    this.#options = options;
    this.#timeoutMs = attempt.context.timeoutMs;
    this.#waitingSince = options.startedAt;
    options.signal?.addEventListener('abort', this.#onAbort, { once: true });
    if (options.signal?.aborted) this.#onAbort();
  }

  [Symbol.asyncIterator](): AsyncIterator<TransportStreamEvent> {
    return {
      next: () => this.#read(),
      return: async () => {
        this.close();
        return DONE;
      },
    };
  }

  /**
   * The next event when it is parsed already (from the body's last read) and the stream is open:
   * what `next()` would resolve with, taken without a promise; undefined when the next event is to be
   * read (call `next()`). Like `next()`, it stops the idle clock; it throws what `next()` would reject
   * with when the event passes its cap.
   */
  takeBuffered(): TransportStreamEvent | undefined {
    if (this.#failure !== null || this.#closed) return undefined;
    if (this.#next >= this.#events.length) {
      if (!this.#parser.hasMore) return undefined;
      // The rest of the last read, parsed now that its events are asked for.
      this.#events = this.#parse(() => this.#parser.more(this.#batch()));
      this.#next = 0;
      if (this.#events.length === 0) return undefined;
    }
    const event = this.#events[this.#next] as TransportStreamEvent;
    this.#next += 1;
    this.#count += 1;
    this.#waiting = false;
    return event;
  }

  close(failure?: unknown): void {
    if (this.#closed) return;
    this.#finish(failure ?? null);
    if (this.#bodyDone) return;
    this.#attempt.abort(
      ChatError.isInstance(failure)
        ? failure
        : new ChatError({ kind: 'aborted', message: 'the stream was closed by its reader' }),
    );
    this.#reader?.cancel().catch(() => {});
  }

  async #read(): Promise<IteratorResult<TransportStreamEvent>> {
    for (;;) {
      if (this.#failure !== null) throw this.#failure;
      if (this.#closed) return DONE;
      if (this.#next < this.#events.length) {
        const event = this.#events[this.#next] as TransportStreamEvent;
        this.#next += 1;
        this.#count += 1;
        this.#waiting = false;
        return { done: false, value: event };
      }
      if (this.#parser.hasMore) {
        // The rest of the last read: parsed now that its events are asked for.
        this.#events = this.#parse(() => this.#parser.more(this.#batch()));
        this.#next = 0;
        continue;
      }
      if (this.#bodyDone || this.#reader === null) {
        this.#finish(null);
        return DONE;
      }
      this.#events = [];
      this.#next = 0;
      if (!this.#waiting) {
        this.#waiting = true;
        // The first wait counts from the attempt's start; each later one from this ask.
        if (this.#count > 0) this.#waitingSince = performance.now();
        this.#arm();
      }
      let chunk: BodyChunk;
      try {
        chunk = await this.#reader.read();
      } catch (error) {
        if (this.#failure !== null) throw this.#failure;
        this.#fail(this.#cutOff(error));
        throw this.#failure;
      }
      if (this.#failure !== null) throw this.#failure;
      if (this.#closed) return DONE;
      if (chunk.done) {
        this.#bodyDone = true;
        this.#events = this.#parse(() => this.#parser.end());
        continue;
      }
      this.#bytes += chunk.value.byteLength;
      if (this.#bytes > this.#options.maxReplyBytes) {
        this.#fail(
          this.#badReply(
            `the stream passed the ${this.#options.maxReplyBytes}-byte cap (maxReplyBytes) after ${this.#count} events: ${this.#bytes} bytes read, counted after decoding; the connection was dropped`,
          ),
        );
        throw this.#failure;
      }
      const value = chunk.value;
      this.#events = this.#parse(() => this.#parser.push(value, this.#batch()));
    }
  }

  // The first events are parsed one at a time, so the first delta does not wait for the whole read
  // that carried it; after them, each read is parsed whole.
  #batch(): number {
    return this.#count < ONE_AT_A_TIME ? 1 : Number.POSITIVE_INFINITY;
  }

  #parse(parse: () => TransportStreamEvent[]): TransportStreamEvent[] {
    try {
      return parse();
    } catch (error) {
      if (error instanceof EventTooLargeError) {
        this.#fail(this.#badReply(`${error.message}; the connection was dropped`));
        throw this.#failure;
      }
      throw error;
    }
  }

  // One timer for the whole stream, re-armed only when it fires early: no timer churn per event.
  #arm(): void {
    if (this.#timer !== null || this.#closed) return;
    const due = this.#waitingSince + this.#timeoutMs - performance.now();
    this.#timer = setTimeout(() => this.#tick(), Math.max(1, Math.ceil(due)));
  }

  #tick(): void {
    this.#timer = null;
    if (this.#closed || !this.#waiting) return;
    if (performance.now() - this.#waitingSince < this.#timeoutMs) {
      this.#arm();
      return;
    }
    const what = this.#count === 0 ? 'no event arrived' : `no event arrived after event ${this.#count}`;
    this.#fail(
      new ChatError({
        kind: 'timeout',
        status: this.status,
        message: `${describeCall(this.#attempt.context, this.status)}: ${what} within ${this.#timeoutMs} ms (the stream's idle timeout)`,
        retryable: true,
      }),
    );
  }

  #cutOff(error: unknown): ChatError {
    const { context } = this.#attempt;
    return new ChatError({
      kind: 'connection',
      status: this.status,
      message: `${describeCall(context, this.status)}: the stream was cut off after ${this.#count} events`,
      cause: redactError(error, context.apiKey),
      retryable: true,
    });
  }

  #badReply(detail: string): ChatError {
    const { context } = this.#attempt;
    return new ChatError({
      kind: 'bad_reply',
      status: this.status,
      message: redact(`${describeCall(context, this.status)}: ${detail}`, context.apiKey),
      retryable: false,
    });
  }

  // A failure of the wire or the caller's: drop the connection; a pending read then ends.
  #fail(failure: ChatError): void {
    if (this.#closed) return;
    this.#failure = failure;
    this.#finish(failure);
    this.#attempt.abort(failure);
    this.#reader?.cancel().catch(() => {});
  }

  #finish(failure: unknown | null): void {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#timer = null;
    this.#options.signal?.removeEventListener('abort', this.#onAbort);
    this.#options.onEnd(failure);
  }
}
