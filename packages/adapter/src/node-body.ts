import type { Readable } from 'node:stream';
import type { BodyChunk, BodyReader, ReplyBody } from './wire-reply.js';

const DONE: BodyChunk = Object.freeze({ done: true, value: undefined });

/** What a pending read settles with. */
interface Waiter {
  readonly resolve: (chunk: BodyChunk) => void;
  readonly reject: (error: unknown) => void;
}

/**
 * A `node:http` reply's body (after any decoding) as the wire path reads a body: one read
 * at a time, each taking what the stream holds (nothing is read ahead past Node's buffer,
 * so back-pressure reaches the socket and the decoder), its end, or its error. `cancel()`
 * drops the connection (`drop`) and ends a pending read.
 */
export class NodeBody implements ReplyBody, BodyReader {
  /** The attempt's end destroys the request, and with it this body: a pending read rejects. */
  readonly endsWithAttempt = true;
  readonly #stream: Readable;
  readonly #drop: () => void;
  #ended = false;
  #failure: { readonly error: unknown } | null = null;
  #waiter: Waiter | null = null;

  constructor(stream: Readable, drop: () => void) {
    this.#stream = stream;
    this.#drop = drop;
    stream.on('readable', () => this.#settle());
    stream.on('end', () => {
      this.#ended = true;
      this.#settle();
    });
    // Always listened for: an error after the body was let go must not go unhandled.
    stream.on('error', (error: unknown) => {
      this.#failure ??= { error };
      this.#settle();
    });
    stream.on('close', () => {
      if (!this.#ended) this.#failure ??= { error: new Error('the reply body was cut off before its end') };
      this.#settle();
    });
  }

  getReader(): BodyReader {
    return this;
  }

  read(): Promise<BodyChunk> {
    const chunk = this.#take();
    if (chunk !== undefined) return Promise.resolve(chunk);
    if (this.#failure !== null) return Promise.reject(this.#failure.error);
    return new Promise<BodyChunk>((resolve, reject) => {
      this.#waiter = { resolve, reject };
    });
  }

  async cancel(_reason?: unknown): Promise<void> {
    if (!this.#ended) {
      this.#ended = true;
      this.#drop();
    }
    this.#settle();
  }

  /** A chunk the stream holds, or its end; undefined when there is neither yet. */
  #take(): BodyChunk | undefined {
    if (this.#ended) return DONE;
    const value = this.#stream.read() as Uint8Array | null;
    if (value !== null) return { done: false, value };
    // At the end, the read above has Node emit 'end' (on a later tick).
    return undefined;
  }

  #settle(): void {
    const waiter = this.#waiter;
    if (waiter === null) return;
    const chunk = this.#take();
    if (chunk !== undefined) {
      this.#waiter = null;
      waiter.resolve(chunk);
    } else if (this.#failure !== null) {
      this.#waiter = null;
      waiter.reject(this.#failure.error);
    }
  }
}
