import type { ChunkTemplate } from './chunk-template.js';

/** The JSON of the integers 0 to 1023, made once (most delays are a few milliseconds). */
const SMALL_INTEGERS: readonly string[] = Array.from({ length: 1024 }, (_, value) => String(value));

/** How many events are held apart before their texts and delays are joined. */
const JOIN_EVERY = 256;

/** A delay as JSON writes it (-0 as 0). */
function delayJson(ms: number): string {
  return ms >= 0 && ms < SMALL_INTEGERS.length && Number.isInteger(ms)
    ? (SMALL_INTEGERS[ms] as string)
    : JSON.stringify(ms);
}

/** What a stretch makes of its events when asked (kept until an event is added). */
interface Made {
  quoted?: string;
  joined?: string;
  texts?: readonly string[];
  delays?: readonly number[];
}

/**
 * Events in a row that matched one template and are kept as they came: each is
 * its delay and its text (its data is the template's bytes around the text). Both
 * are kept as the line writes them, joined a few hundred events at a time: the
 * texts as JSON strings (a matched text needs no escape: no quote, backslash or
 * control character), the delays as JSON numbers. A stream of 100,000 such events
 * is a few hundred strings, not 100,000 small ones that every young-generation
 * collection copies until they are promoted (that copying cost a long recording
 * more than its own work), and its line is not made of them again at its end.
 */
export class TextStretch {
  readonly template: ChunkTemplate;
  #count = 0;
  /** The texts, comma-separated JSON strings a chunk (`a","b`, outer quotes left out: `","` stands only between two). */
  readonly #textChunks: string[] = [];
  /** The same texts joined, a chunk. */
  readonly #plainChunks: string[] = [];
  /** The delays, comma-separated JSON numbers a chunk (`0,12,0`). */
  readonly #delayChunks: string[] = [];
  // The events since the last chunk, in lists made once at their full size (a list emptied and filled again
  // would be grown again from nothing each time: garbage a long stream's worth).
  readonly #pendingTexts = new Array<string>(JOIN_EVERY);
  readonly #pendingDelays = new Array<string>(JOIN_EVERY);
  #pending = 0;
  /** Made when first asked for, and again after an event is added. */
  #made: Made | null = null;

  constructor(template: ChunkTemplate) {
    this.template = template;
  }

  get count(): number {
    return this.#count;
  }

  /** An event of `text` that came `ms` after the one before it. */
  add(ms: number, text: string): void {
    this.#count += 1;
    const at = this.#pending;
    this.#pendingTexts[at] = text;
    this.#pendingDelays[at] = delayJson(ms);
    this.#pending = at + 1;
    if (at + 1 === JOIN_EVERY) this.#flush();
    if (this.#made !== null) this.#made = null;
  }

  /** Every text as a JSON string, comma-separated (`"a","b"`): the inside of their JSON list. */
  quoted(): string {
    const made = this.#madeNow();
    made.quoted ??= `"${this.#textChunks.join('","')}"`;
    return made.quoted;
  }

  /** Every delay as JSON, comma-separated (`0,12,0`), as `JSON.stringify` writes each. */
  delaysJson(): string {
    this.#flush();
    return this.#delayChunks.join(',');
  }

  /** Every text, joined in order (what a scan reads). */
  joined(): string {
    const made = this.#madeNow();
    made.joined ??= this.#plainChunks.join('');
    return made.joined;
  }

  /** Every text, in order (the same array until an event is added). */
  texts(): readonly string[] {
    const made = this.#madeNow();
    made.texts ??= this.quoted().slice(1, -1).split('","');
    return made.texts;
  }

  /** Every delay, in order, as the line reads it back (the same array until an event is added). */
  delays(): readonly number[] {
    const made = this.#madeNow();
    made.delays ??= JSON.parse(`[${this.delaysJson()}]`) as number[];
    return made.delays;
  }

  #madeNow(): Made {
    this.#flush();
    this.#made ??= {};
    return this.#made;
  }

  #flush(): void {
    const count = this.#pending;
    if (count === 0) return;
    const texts = count === JOIN_EVERY ? this.#pendingTexts : this.#pendingTexts.slice(0, count);
    const delays = count === JOIN_EVERY ? this.#pendingDelays : this.#pendingDelays.slice(0, count);
    this.#textChunks.push(texts.join('","'));
    this.#plainChunks.push(texts.join(''));
    this.#delayChunks.push(delays.join(','));
    this.#pending = 0;
  }
}
