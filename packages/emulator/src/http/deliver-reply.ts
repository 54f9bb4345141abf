import type { ServerResponse } from 'node:http';
import { setTimeout as delay, setImmediate as yieldToLoop } from 'node:timers/promises';
import { frameEvent, isDataEvent, type StreamEvent } from '../chat/stream-events.js';

/** A streamed body: its events and how they go on the wire. */
export interface SseBody {
  readonly events: readonly StreamEvent[];
  /** The pause between data events, in milliseconds. */
  readonly eventMs: number;
  /** The pause before each comment, in milliseconds. */
  readonly keepAliveMs: number;
  /** Destroy the connection after this many data events; null: no cut. */
  readonly cutAfter: number | null;
  /** End the body cleanly after this many data events; null: no early end. */
  readonly endAfter: number | null;
  /** Stop writing after this many data events, the connection kept open; null: no stall. */
  readonly stallAfter: number | null;
  /** A chunk written again and again after the events, until the client hangs up; null: none. */
  readonly endless: Record<string, unknown> | null;
}

/** A reply body: finite text, a body that starts with `endless` and never ends, or a stream of events. */
type ReplyBody = string | { readonly endless: string } | { readonly sse: SseBody };

/** A reply to write: status, headers (a content type among them) and body. */
export interface Reply {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: ReplyBody;
}

/** How a reply's body goes on the wire (fault plans slow it down or cut it off). */
export interface Delivery {
  /** The pause between pieces of `trickleBytes` bytes; null writes the body at once. */
  readonly trickleMs: number | null;
  readonly trickleBytes: number;
  /** `\n` lines sent after the headers, `keepAliveMs` apart, before the body. */
  readonly keepAliveNewlines: number;
  readonly keepAliveMs: number;
  /** Announce the whole length, write this many bytes of the body, then destroy the connection; null: no cut. */
  readonly cutOffBytes: number | 'half' | null;
}

/** Told of each data event of a stream as it is handed to the socket (the bill counts them). */
export interface EventTap {
  wrote(event: StreamEvent): void;
}

/** Writes the body at once, whole. */
export const PLAIN_DELIVERY: Delivery = {
  trickleMs: null,
  trickleBytes: 8,
  keepAliveNewlines: 0,
  keepAliveMs: 100,
  cutOffBytes: null,
};

// Big pieces, so an endless body arrives as fast as the client reads (hundreds of MB/s).
const ENDLESS_CHUNK = Buffer.from('endless filler text '.repeat(3277));

/**
 * Writes `reply` as `delivery` asks. Resolves when the body is written, the
 * client has gone, or `signal` (the emulator closing) aborts; an endless body
 * only ends one of the latter two ways. `tap` is told of each stream data event written.
 */
export async function deliverReply(
  response: ServerResponse,
  reply: Reply,
  delivery: Delivery,
  signal: AbortSignal,
  tap?: EventTap,
): Promise<void> {
  if (response.destroyed || response.headersSent) return;
  if (typeof reply.body === 'object' && 'sse' in reply.body) {
    await deliverEvents(response, reply, reply.body.sse, signal, tap);
    return;
  }
  if (typeof reply.body === 'string' && delivery === PLAIN_DELIVERY) {
    // The common case: headers and body leave in one write.
    const text = Buffer.from(reply.body);
    response.writeHead(reply.status, { ...reply.headers, 'content-length': String(text.length) });
    response.end(text);
    return;
  }
  const wire = new Wire(response, signal);
  try {
    const text = typeof reply.body === 'string' ? Buffer.from(reply.body) : null;
    const known = text !== null && delivery.keepAliveNewlines === 0;
    response.writeHead(reply.status, {
      ...reply.headers,
      ...(known ? { 'content-length': String(text.length) } : {}),
    });
    response.flushHeaders();
    for (let index = 0; index < delivery.keepAliveNewlines; index += 1) {
      if (!(await wire.pause(delivery.keepAliveMs)) || !(await wire.write(Buffer.from('\n')))) return;
    }
    if (delivery.keepAliveNewlines > 0 && !(await wire.pause(delivery.keepAliveMs))) return;
    if (text === null) {
      await writeEndless(wire, Buffer.from((reply.body as { endless: string }).endless), delivery);
      return;
    }
    const cut = delivery.cutOffBytes === 'half' ? Math.floor(text.length / 2) : delivery.cutOffBytes;
    const written = cut === null ? text : text.subarray(0, cut);
    if (!(await writePaced(wire, written, delivery))) return;
    if (cut !== null) {
      response.write('', () => response.destroy());
      return;
    }
    response.end();
  } finally {
    wire.dispose();
  }
}

/** Writes a stream of events, each in its own write, paced and broken as `body` says. */
async function deliverEvents(
  response: ServerResponse,
  reply: Reply,
  body: SseBody,
  signal: AbortSignal,
  tap: EventTap | undefined,
): Promise<void> {
  const wire = new Wire(response, signal);
  try {
    response.writeHead(reply.status, reply.headers);
    response.flushHeaders();
    let written = 0;
    const broken = async (): Promise<boolean> => {
      if (written === body.cutAfter) {
        response.write('', () => response.destroy());
        return true;
      }
      if (written === body.endAfter) {
        response.end();
        return true;
      }
      if (written === body.stallAfter) {
        // Nothing more is written; the connection stays open until the client or the emulator ends it.
        await wire.pause(2 ** 31 - 1);
        return true;
      }
      return false;
    };
    if (await broken()) return;
    for (const event of body.events) {
      const data = isDataEvent(event);
      const pause = 'comment' in event ? body.keepAliveMs : data && written > 0 ? body.eventMs : 0;
      if (pause > 0 && !(await wire.pause(pause))) return;
      // `write` hands the bytes to the socket at once unless the client has gone.
      if (data && !wire.gone) tap?.wrote(event);
      if (!(await wire.write(Buffer.from(frameEvent(event))))) return;
      if (!data) continue;
      written += 1;
      if (await broken()) return;
    }
    if (body.endless !== null) {
      const event = { data: body.endless };
      const text = Buffer.from(frameEvent(event));
      for (;;) {
        if (body.eventMs > 0 && !(await wire.pause(body.eventMs))) return;
        if (!wire.gone) tap?.wrote(event);
        if (!(await wire.write(text))) return;
        written += 1;
        if (await broken()) return;
        if (body.eventMs === 0) await yieldToLoop();
      }
    }
    response.end();
  } finally {
    wire.dispose();
  }
}

async function writePaced(wire: Wire, bytes: Buffer, delivery: Delivery): Promise<boolean> {
  if (delivery.trickleMs === null) return wire.write(bytes);
  for (let start = 0; start < bytes.length; start += delivery.trickleBytes) {
    if (start > 0 && !(await wire.pause(delivery.trickleMs))) return false;
    if (!(await wire.write(bytes.subarray(start, start + delivery.trickleBytes)))) return false;
  }
  return true;
}

async function writeEndless(wire: Wire, prefix: Buffer, delivery: Delivery): Promise<void> {
  if (!(await writePaced(wire, prefix, delivery))) return;
  for (;;) {
    if (delivery.trickleMs === null) {
      if (!(await wire.write(ENDLESS_CHUNK))) return;
      // A client that keeps up never applies back-pressure: let the loop breathe.
      await yieldToLoop();
    } else {
      if (!(await wire.pause(delivery.trickleMs))) return;
      if (!(await wire.write(ENDLESS_CHUNK.subarray(0, delivery.trickleBytes)))) return;
    }
  }
}

/** A response being written, that knows when the client or the emulator has gone. */
class Wire {
  readonly #response: ServerResponse;
  readonly #stop = new AbortController();
  readonly #signal: AbortSignal;
  readonly #onStop = (): void => this.#stop.abort();

  constructor(response: ServerResponse, signal: AbortSignal) {
    this.#response = response;
    this.#signal = signal;
    response.once('close', this.#onStop);
    signal.addEventListener('abort', this.#onStop, { once: true });
    if (signal.aborted) this.#stop.abort();
  }

  get gone(): boolean {
    return this.#stop.signal.aborted || this.#response.destroyed;
  }

  /** Waits `ms`; false when the client or the emulator went away meanwhile. */
  async pause(ms: number): Promise<boolean> {
    try {
      await delay(ms, undefined, { signal: this.#stop.signal });
    } catch {
      return false;
    }
    return !this.gone;
  }

  /** Writes `bytes`, waiting while the client is behind; false when it went away. */
  async write(bytes: Buffer): Promise<boolean> {
    if (this.gone) return false;
    if (!this.#response.write(bytes)) {
      await new Promise<void>((resolve) => {
        const done = (): void => {
          this.#response.off('drain', done);
          this.#stop.signal.removeEventListener('abort', done);
          resolve();
        };
        this.#response.once('drain', done);
        this.#stop.signal.addEventListener('abort', done, { once: true });
      });
    }
    return !this.gone;
  }

  dispose(): void {
    this.#response.off('close', this.#onStop);
    this.#signal.removeEventListener('abort', this.#onStop);
  }
}
