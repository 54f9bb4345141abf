import { isDataEvent, type StreamEvent } from '../chat/stream-events.js';
import type { EventTap, Reply } from '../http/deliver-reply.js';
import type { BilledRequest } from './bill-types.js';
import type { BillSlot } from './emulator-bill.js';
import { GeneratedTokens } from './generated-tokens.js';
import type { Generation } from './generation.js';

type Outcome = BilledRequest['outcome'];

/** What a meter knows of a stream being written. */
interface Streaming {
  readonly generation: Generation;
  /** Data events in the stream (comments and raw bytes aside); null for an endless one. */
  readonly dataEvents: number | null;
  written: number;
  readonly tokens: GeneratedTokens;
  /** An error event was written after this many generated tokens. */
  errorAfter: number | null;
}

/**
 * Meters one chat-completion request for the bill: what was asked, then what
 * was answered and, for a stream, what was written before it ended. The entry
 * is filled as soon as the outcome is known — a plain reply or a refusal when
 * it is answered, a stream when its last event is written — else when the
 * response ends or its connection closes (`ended()`).
 */
export class RequestMeter implements EventTap {
  readonly #slot: BillSlot;
  #model = '';
  #streamed = false;
  #streaming: Streaming | null = null;
  #done = false;

  constructor(slot: BillSlot) {
    this.#slot = slot;
  }

  /** The model asked for (as the id it maps to, when it does) and whether a stream was asked for. */
  asked(model: string, streamed: boolean): void {
    this.#model = model;
    this.#streamed = streamed;
  }

  /** Answered before any output (an error status, a fault answer): nothing billed. */
  refused(): void {
    this.#fill('refused', null, 0);
  }

  /** A plain reply generated whole: billed whole, however its writing goes. */
  whole(generation: Generation): void {
    this.#fill('whole', generation, generation.completionTokens);
  }

  /**
   * The emulator's own answer is about to be written as `reply`: refused unless
   * it generated a completion (`generation`) answered 200; a plain reply is
   * billed whole at once, a stream as it is written.
   */
  answered(generation: Generation | undefined, reply: Reply): void {
    if (generation === undefined || reply.status !== 200) this.refused();
    else if (typeof reply.body === 'object' && 'sse' in reply.body) {
      const sse = reply.body.sse;
      this.streaming(generation, sse.endless === null ? sse.events.filter(isDataEvent).length : null);
    } else this.whole(generation);
  }

  /** A reply that reports a failure after its headers, with choices and zero usage (`errorInBody`). */
  failedEmpty(): void {
    this.#fill('error_after_output', null, 0);
  }

  /** A stream of `dataEvents` data events (null: endless) generated as `generation` is about to be written. */
  streaming(generation: Generation, dataEvents: number | null): void {
    if (this.#done) return;
    this.#streaming = { generation, dataEvents, written: 0, tokens: new GeneratedTokens(), errorAfter: null };
    if (dataEvents === 0) this.ended();
  }

  /** A data event of the stream has been handed to the socket. */
  wrote(event: StreamEvent): void {
    const stream = this.#streaming;
    if (stream === null || this.#done || !isDataEvent(event)) return;
    stream.written += 1;
    // A malformed event (raw text) stands for a chunk the client could not read: it counts no text.
    const data = 'data' in event ? event.data : '[DONE]';
    if (data !== '[DONE]') {
      if ('error' in data) stream.errorAfter ??= stream.tokens.completionTokens;
      else stream.tokens.add(data);
    }
    if (stream.written === stream.dataEvents) this.ended();
  }

  /** The response ended or its connection closed: bills whatever is not billed yet. */
  ended(): void {
    if (this.#done) return;
    const stream = this.#streaming;
    if (stream === null) {
      // Never answered: the connection went away first (a reset, a delay the client left).
      this.refused();
      return;
    }
    const whole = stream.generation.completionTokens;
    const generated = Math.min(stream.tokens.completionTokens, whole);
    if (stream.errorAfter !== null) {
      if (stream.errorAfter === 0) this.refused();
      else this.#fill('error_after_output', stream.generation, Math.min(stream.errorAfter, whole));
    } else if (stream.written === stream.dataEvents) {
      this.#fill('whole', stream.generation, whole);
    } else {
      this.#fill('cut', stream.generation, generated);
    }
  }

  #fill(outcome: Outcome, generation: Generation | null, completionTokens: number): void {
    if (this.#done) return;
    this.#done = true;
    const prompt = generation?.promptTokens ?? 0;
    const hits = generation?.cacheHitTokens ?? 0;
    this.#slot.fill({
      model: generation?.model ?? this.#model,
      streamed: this.#streamed,
      outcome,
      usage: {
        prompt_tokens: prompt,
        completion_tokens: completionTokens,
        prompt_cache_hit_tokens: hits,
        prompt_cache_miss_tokens: prompt - hits,
      },
    });
  }
}
