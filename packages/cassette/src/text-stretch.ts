import type { ChunkTemplate } from './chunk-template.js';

/** The JSON of the integers 0 to 1023, made once. */
const SMALL_INTEGERS: readonly string[] = Array.from({ length: 1024 }, (_, value) => String(value));

/** How many texts are held apart before they are joined. */
const JOIN_EVERY = 256;

/**
 * Events in a row that matched one template and are kept as they came: each is
 * its delay and its text (its data is the template's bytes around the text). The
 * texts are joined a few hundred at a time, their lengths and delays kept in
 * typed arrays: a stream of 100,000 such events is a few hundred strings, not
 * 100,000 small ones that every young-generation collection copies until they
 * are promoted (that copying cost a long recording more than its own work).
 */
export class TextStretch {
  readonly template: ChunkTemplate;
  #count = 0;
  #delays = new Float64Array(64);
  #lengths = new Int32Array(64);
  /**
   * The texts as JSON strings, comma-separated, a few hundred a chunk (`a","b`, the outer quotes
   * left out): a matched text has no quote, so `","` stands only between two texts.
   */
  readonly #quotedChunks: string[] = [];
  readonly #pending: string[] = [];
  /** The texts joined, as JSON, and one by one, made when first asked for (and again after an event is added). */
  #joined: string | null = null;
  #quoted: string | null = null;
  #texts: string[] | null = null;

  constructor(template: ChunkTemplate) {
    this.template = template;
  }

  get count(): number {
    return this.#count;
  }

  /** An event of `text` that came `ms` after the one before it. */
  add(ms: number, text: string): void {
    const count = this.#count;
    if (count === this.#lengths.length) this.#grow();
    this.#delays[count] = ms;
    this.#lengths[count] = text.length;
    this.#count = count + 1;
    this.#pending.push(text);
    if (this.#pending.length >= JOIN_EVERY) this.#flush();
    if (this.#joined !== null) this.#joined = null;
    if (this.#quoted !== null) this.#quoted = null;
    if (this.#texts !== null) this.#texts = null;
  }

  /** Event `index`'s delay. */
  delay(index: number): number {
    return this.#delays[index] as number;
  }

  /** Every delay, in order (a new array). */
  delays(): number[] {
    const delays = new Array<number>(this.#count);
    for (let index = 0; index < this.#count; index += 1) delays[index] = this.#delays[index] as number;
    return delays;
  }

  /** Every delay as JSON, comma-separated (`0,12,0`), as `JSON.stringify` writes each. */
  delaysJson(): string {
    const written = new Array<string>(this.#count);
    for (let index = 0; index < this.#count; index += 1) {
      const delay = this.#delays[index] as number;
      // Most delays are a few milliseconds: their text is made once (-0 is written 0, as JSON does).
      written[index] =
        delay >= 0 && delay < SMALL_INTEGERS.length && Number.isInteger(delay)
          ? (SMALL_INTEGERS[delay] as string)
          : JSON.stringify(delay);
    }
    return written.join(',');
  }

  /** Every text, joined in order. */
  joined(): string {
    this.#joined ??= this.quoted().slice(1, -1).replaceAll('","', '');
    return this.#joined;
  }

  /**
   * Every text as a JSON string, comma-separated (`"a","b"`): the inside of their JSON list, made
   * as the texts came (a matched text needs no escape: no quote, backslash or control character).
   */
  quoted(): string {
    if (this.#quoted === null) {
      this.#flush();
      this.#quoted = `"${this.#quotedChunks.join('","')}"`;
    }
    return this.#quoted;
  }

  /** Every text, in order (the same array until an event is added: not to be changed). */
  texts(): readonly string[] {
    if (this.#texts === null) {
      const joined = this.joined();
      const texts = new Array<string>(this.#count);
      let at = 0;
      for (let index = 0; index < this.#count; index += 1) {
        const end = at + (this.#lengths[index] as number);
        texts[index] = joined.slice(at, end);
        at = end;
      }
      this.#texts = texts;
    }
    return this.#texts;
  }

  #flush(): void {
    if (this.#pending.length === 0) return;
    this.#quotedChunks.push(this.#pending.join('","'));
    this.#pending.length = 0;
  }

  #grow(): void {
    const delays = new Float64Array(this.#delays.length * 2);
    delays.set(this.#delays);
    this.#delays = delays;
    const lengths = new Int32Array(this.#lengths.length * 2);
    lengths.set(this.#lengths);
    this.#lengths = lengths;
  }
}
