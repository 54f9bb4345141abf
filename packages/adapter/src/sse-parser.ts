import { StringDecoder } from 'node:string_decoder';
import type { TransportStreamEvent } from './chat-transport.js';

/**
 * How many bytes of a read are decoded first when only its first events are asked for: a chat chunk
 * is a few hundred bytes, and a read's 16 to 64 KiB decoded at once cost a stream's first delta ten
 * microseconds or more on a cold CPU.
 */
const FIRST_PIECE = 1024;

/**
 * A Server-Sent Events parser (the WHATWG event-stream format), written here
 * rather than taken from a library for three reasons: it is small (one pass
 * over each chunk), it is exact about what a chat stream needs and nothing more
 * (comment lines are kept as events, so idle timers and recorders see the
 * primary platform's `: keep-alive`; `id:` and `retry:` are ignored, as a chat
 * reply never reconnects), and its memory is ours to cap: one event may hold at
 * most `maxEventBytes` characters of text, checked as its lines arrive, so a server that
 * never ends an event cannot grow the client without bound.
 *
 * Lines end in `\n`, `\r\n` or `\r` (also split across chunks); a leading BOM
 * is dropped; `data:` lines of one event are joined with `\n`; an event is
 * dispatched at its blank line (one with no `data:` line is dropped, as the
 * format says); one space after the field's colon is dropped.
 */
export class SseParser {
  readonly #maxEventBytes: number;
  // Node's StringDecoder: the same text as a streaming `TextDecoder('utf-8')` (U+FFFD for what is not
  // UTF-8, characters split across chunks joined), several times faster; the decoder's BOM is dropped below.
  readonly #decoder = new StringDecoder('utf8');
  #decoded = false;
  // The text of a line not yet ended, and whether the last chunk ended in '\r'.
  #partial = '';
  // Text decoded but not parsed yet, and bytes not decoded yet: what a push with `maxEvents` left.
  #rest = '';
  #bytes: Uint8Array | null = null;
  // How many of those bytes the next piece decodes.
  #piece = FIRST_PIECE;
  #restNewlinesOnly = false;
  #afterCarriageReturn = false;
  #started = false;
  // The `data:` lines of the event so far: the first alone (most events have one), the rest in a list.
  #data: string | null = null;
  #moreData: string[] | null = null;
  #event: string | undefined;
  #eventChars = 0;

  /** @param maxEventBytes the most text one event (its lines together) may hold; past it, {@link SseParser.push} throws. */
  constructor(maxEventBytes: number) {
    this.#maxEventBytes = maxEventBytes;
  }

  /**
   * Parses one chunk of the body; returns the events it completed, in order.
   * With `maxEvents`, parsing stops after that many events: the rest of the
   * chunk waits for {@link SseParser.more} (the first event of a large read
   * need not wait for all the others), undecoded: the chunk is decoded a piece
   * at a time, as far as the events asked for need. Throws an
   * {@link EventTooLargeError} when an event passes the cap.
   */
  push(chunk: Uint8Array, maxEvents = Number.POSITIVE_INFINITY): TransportStreamEvent[] {
    if (maxEvents === Number.POSITIVE_INFINITY && this.#bytes === null) {
      const text = this.#decode(this.#decoder.write(chunk));
      return this.#text(this.#rest === '' ? text : this.#takeRest() + text, maxEvents, null);
    }
    this.#bytes = this.#bytes === null ? chunk : Buffer.concat([this.#bytes, chunk]);
    this.#piece = FIRST_PIECE;
    return this.more(maxEvents);
  }

  /** Whether text pushed already waits to be parsed ({@link SseParser.more}). */
  get hasMore(): boolean {
    return this.#rest !== '' || this.#bytes !== null;
  }

  /** Parses on in what `push` left with `maxEvents`; returns the events completed, at most `maxEvents`. */
  more(maxEvents = Number.POSITIVE_INFINITY): TransportStreamEvent[] {
    // The rest holds a '\r' only when the text it came from held one after it.
    const events = this.#rest === '' ? [] : this.#text(this.#takeRest(), maxEvents, this.#restNewlinesOnly);
    while (events.length < maxEvents && this.#bytes !== null) {
      const text = this.#decode(this.#decoder.write(this.#nextPiece(maxEvents)));
      for (const event of this.#text(text, maxEvents - events.length, null)) events.push(event);
    }
    return events;
  }

  /** The end of the body: returns the last event when its blank line never came (a server may end without one). */
  end(): TransportStreamEvent[] {
    const pending = this.#bytes === null ? '' : this.#decode(this.#decoder.write(this.#nextPiece()));
    const events = this.#text(
      this.#takeRest() + pending + this.#decode(this.#decoder.end()),
      Number.POSITIVE_INFINITY,
      null,
    );
    if (this.#partial !== '') {
      this.#line(this.#partial, events);
      this.#partial = '';
    }
    this.#dispatch(events);
    return events;
  }

  // The next piece of the undecoded bytes: all of them when every event is asked for, else a piece
  // that doubles each time (the first events of a read are decoded without the rest of it).
  #nextPiece(maxEvents = Number.POSITIVE_INFINITY): Uint8Array {
    const bytes = this.#bytes as Uint8Array;
    if (maxEvents === Number.POSITIVE_INFINITY || bytes.byteLength <= this.#piece) {
      this.#bytes = null;
      return bytes;
    }
    const piece = bytes.subarray(0, this.#piece);
    this.#bytes = bytes.subarray(this.#piece);
    this.#piece *= 2;
    return piece;
  }

  // As `TextDecoder` does, a BOM that begins the decoded text is dropped (the format then drops one more).
  #decode(text: string): string {
    if (this.#decoded || text.length === 0) return text;
    this.#decoded = true;
    return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  }

  #takeRest(): string {
    const rest = this.#rest;
    this.#rest = '';
    return rest;
  }

  #text(input: string, maxEvents: number, knownNewlinesOnly: boolean | null): TransportStreamEvent[] {
    const events: TransportStreamEvent[] = [];
    let text = input;
    if (!this.#started && text.length > 0) {
      this.#started = true;
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    }
    let start = 0;
    if (this.#afterCarriageReturn && text.charCodeAt(0) === 10) start = 1;
    this.#afterCarriageReturn = false;
    const length = text.length;
    // Most servers end lines with '\n' alone: then each line is found by indexOf, not a character at a time.
    const newlinesOnly = knownNewlinesOnly ?? text.indexOf('\r', start) < 0;
    for (let index = start; index < length; index += 1) {
      if (newlinesOnly) {
        index = text.indexOf('\n', index);
        if (index < 0) break;
      }
      const code = text.charCodeAt(index);
      if (code !== 10 && code !== 13) continue;
      if (this.#partial === '' && text.charCodeAt(start + 4) === 58 && text.startsWith('data', start)) {
        // A whole `data:` line in this chunk: its value is cut out of the text at once, not out of a line first.
        this.#addData(text.slice(start + (text.charCodeAt(start + 5) === 32 ? 6 : 5), index));
      } else {
        const line =
          this.#partial === '' ? text.slice(start, index) : this.#partial + text.slice(start, index);
        this.#partial = '';
        this.#line(line, events);
      }
      if (code === 13) {
        if (index + 1 === length) this.#afterCarriageReturn = true;
        else if (text.charCodeAt(index + 1) === 10) index += 1;
      }
      start = index + 1;
      if (events.length >= maxEvents) {
        // Enough for now: the rest of the text is parsed when asked for (`more`).
        if (start < length) {
          this.#rest = text.slice(start);
          this.#restNewlinesOnly = newlinesOnly;
        }
        return events;
      }
    }
    if (start < length) {
      this.#partial += text.slice(start);
      this.#check(this.#partial.length);
    }
    return events;
  }

  #line(line: string, events: TransportStreamEvent[]): void {
    if (line === '') {
      this.#dispatch(events);
      return;
    }
    // Nearly every line of a chat stream is `data: ...`: read it without slicing out its field name.
    if (line.charCodeAt(4) === 58 && line.startsWith('data')) {
      this.#addData(line.slice(line.charCodeAt(5) === 32 ? 6 : 5));
      return;
    }
    const colon = line.indexOf(':');
    if (colon === 0) {
      events.push({ comment: line.slice(1) });
      return;
    }
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.charCodeAt(0) === 32) value = value.slice(1);
    if (field === 'data') {
      this.#addData(value);
    } else if (field === 'event') {
      this.#event = value;
    }
  }

  #addData(value: string): void {
    this.#eventChars += value.length + 1;
    this.#check(0);
    if (this.#data === null) this.#data = value;
    else if (this.#moreData === null) this.#moreData = [value];
    else this.#moreData.push(value);
  }

  #dispatch(events: TransportStreamEvent[]): void {
    if (this.#data !== null) {
      const data = this.#moreData === null ? this.#data : [this.#data, ...this.#moreData].join('\n');
      events.push(this.#event === undefined ? { data } : { data, event: this.#event });
    }
    this.#data = null;
    this.#moreData = null;
    this.#event = undefined;
    this.#eventChars = 0;
  }

  // Counted in UTF-16 units, the text held in memory (one per byte for ASCII, fewer for other text).
  #check(pending: number): void {
    if (this.#eventChars + pending > this.#maxEventBytes) throw new EventTooLargeError(this.#maxEventBytes);
  }
}

/** One event of a stream passed its size cap. */
export class EventTooLargeError extends Error {
  override readonly name = 'EventTooLargeError';
  constructor(readonly maxEventBytes: number) {
    super(`one event of the stream passed the ${maxEventBytes}-byte cap (maxEventBytes)`);
  }
}
