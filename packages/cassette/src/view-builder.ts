/**
 * Decoded texts that keep, for each of their UTF-16 units, the range of the
 * source it came from (so a secret found in one can be removed from the source),
 * and the pieces decoders share: base64 values, runs of an alphabet, printable bytes.
 */

/**
 * A text and, for each of its UTF-16 units, the range `[from, to)` of the source
 * text it came from: `from` null for the source itself (unit `i` is at `i`), `to`
 * null when each unit came from one unit (`to` is `from + 1`).
 */
export interface View {
  readonly text: string;
  readonly from: Int32Array | null;
  readonly to: Int32Array | null;
  /** How it was decoded: `as is`, or the decodings from the source, outermost first. */
  readonly form: string;
  /**
   * A text whose separators were taken out (a key spaced out, hex as `73 6b`): words run
   * together there into shapes they never had, so only the keys and hex are looked for in it.
   */
  readonly spacedOut?: boolean;
  /** Source ranges a decoder could not look into (compressed data past its cap): each counts as a secret. */
  readonly opaque?: ReadonlyArray<readonly [number, number]>;
}

/** The text as is. */
export function identityView(text: string): View {
  return { text, from: null, to: null, form: 'as is' };
}

/** Where in the source unit `index` of `view` starts. */
export function sourceStart(view: View, index: number): number {
  return view.from === null ? index : (view.from[index] as number);
}

/** Where in the source unit `index` of `view` ends. */
export function sourceEnd(view: View, index: number): number {
  return view.to === null ? sourceStart(view, index) + 1 : (view.to[index] as number);
}

const EMPTY_UNITS = new Uint16Array(0);
const EMPTY_POSITIONS = new Int32Array(0);
const EMPTY_BYTES = new Uint8Array(0);

/** Builds a decoded text with a source range per unit, in typed arrays (views of megabytes are common). */
export class ViewBuilder {
  // Allocated at the first unit: most decodings of a short text find nothing to keep.
  #units: Uint16Array = EMPTY_UNITS;
  #from: Int32Array = EMPTY_POSITIONS;
  #to: Int32Array = EMPTY_POSITIONS;
  #length = 0;
  readonly #capacity: number;

  constructor(capacity: number) {
    this.#capacity = Math.max(16, capacity);
  }

  /** One UTF-16 unit decoded from the source's `[from, to)`. */
  pushCode(code: number, from: number, to: number): void {
    if (this.#length === this.#units.length) this.#grow();
    this.#units[this.#length] = code;
    this.#from[this.#length] = from;
    this.#to[this.#length] = to;
    this.#length += 1;
  }

  push(text: string, from: number, to: number): void {
    for (let index = 0; index < text.length; index += 1) this.pushCode(text.charCodeAt(index), from, to);
  }

  get length(): number {
    return this.#length;
  }

  #grow(): void {
    const size = this.#units.length === 0 ? this.#capacity : this.#units.length * 2;
    const units = new Uint16Array(size);
    units.set(this.#units);
    const from = new Int32Array(size);
    from.set(this.#from);
    const to = new Int32Array(size);
    to.set(this.#to);
    this.#units = units;
    this.#from = from;
    this.#to = to;
  }

  /**
   * The view over `source`, its ranges translated through the source's own; `options`
   * says whether its separators were taken out and which source ranges could not be decoded.
   */
  build(
    source: View,
    form: string,
    options: { spacedOut?: boolean; opaque?: ReadonlyArray<readonly [number, number]> } = {},
  ): View {
    const count = this.#length;
    const from = new Int32Array(count);
    const to = new Int32Array(count);
    for (let index = 0; index < count; index += 1) {
      const start = this.#from[index] as number;
      const end = this.#to[index] as number;
      from[index] = start < 0 ? -1 : sourceStart(source, start);
      to[index] = start < 0 ? -1 : sourceEnd(source, end - 1);
    }
    let text = '';
    for (let offset = 0; offset < count; offset += 8192) {
      text += String.fromCharCode(...this.#units.subarray(offset, Math.min(count, offset + 8192)));
    }
    const label = source.form === 'as is' ? form : `${form} of ${source.form}`;
    const opaque = (options.opaque ?? []).map(
      ([start, end]) => [sourceStart(source, start), sourceEnd(source, end - 1)] as const,
    );
    return {
      text,
      from,
      to,
      form: label,
      ...(options.spacedOut === true ? { spacedOut: true } : {}),
      ...(opaque.length > 0 ? { opaque } : {}),
    };
  }
}

/** Each ASCII character's value in base64 (both alphabets), or -1. */
export const BASE64_VALUES = (() => {
  const values = new Int8Array(128).fill(-1);
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  for (let index = 0; index < alphabet.length; index += 1) values[alphabet.charCodeAt(index)] = index;
  values['+'.charCodeAt(0)] = 62;
  values['-'.charCodeAt(0)] = 62;
  values['/'.charCodeAt(0)] = 63;
  values['_'.charCodeAt(0)] = 63;
  return values;
})();

/** The fewest base64 characters worth decoding: 8 bytes (the shortest secret) need 11. */
const MIN_BASE64_RUN = 11;

let scratch = new Int32Array(256);
/** The largest scratch kept between calls (a longer run grows one of its own). */
const MAX_SCRATCH = 1 << 16;

/**
 * Runs of characters of an ASCII alphabet (`alphabet[code] >= 0`: its value table), as the indices of
 * their characters: line breaks (and `\n` escapes, as MIME and JSON break long base64) inside a run are
 * skipped. A table, not a test per character: this reads every character of every view.
 */
export function runsOf(text: string, alphabet: Int8Array, minimum: number): Int32Array[] {
  const runs: Int32Array[] = [];
  // One scratch buffer for the run being read, kept between calls (this never runs twice at once):
  // only a run long enough is copied out (words are short).
  let run = scratch;
  let length = 0;
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    if (code < 128 && (alphabet[code] as number) >= 0) {
      if (length === run.length) {
        const grown = new Int32Array(length * 2);
        grown.set(run);
        run = grown;
        if (run.length <= MAX_SCRATCH) scratch = run;
      }
      run[length] = index;
      length += 1;
      continue;
    }
    if (length === 0) continue;
    if (code === 10 || code === 13) continue;
    if (code === 92 && (text[index + 1] === 'n' || text[index + 1] === 'r')) {
      index += 1;
      continue;
    }
    if (length >= minimum) runs.push(run.slice(0, length));
    length = 0;
  }
  if (length >= minimum) runs.push(run.slice(0, length));
  return runs;
}

/**
 * Collects the bytes decoded from one run, with the source range of each, and
 * passes on only their printable runs of 8 bytes or more (each apart): a key or
 * a credential is printable text, and megabytes of binary noise (an image) are
 * never built into a view.
 */
export class PrintableBytes {
  readonly #out: ViewBuilder;
  #bytes = EMPTY_BYTES;
  #from = EMPTY_POSITIONS;
  #to = EMPTY_POSITIONS;
  #length = 0;

  constructor(out: ViewBuilder) {
    this.#out = out;
  }

  push(byte: number, from: number, to: number): void {
    const printable = (byte >= 0x20 && byte <= 0x7e) || byte === 9 || byte === 10 || byte === 13;
    if (!printable) {
      this.flush();
      return;
    }
    if (this.#length === this.#bytes.length) {
      const size = Math.max(64, this.#length * 2);
      const bytes = new Uint8Array(size);
      bytes.set(this.#bytes);
      const starts = new Int32Array(size);
      starts.set(this.#from);
      const ends = new Int32Array(size);
      ends.set(this.#to);
      this.#bytes = bytes;
      this.#from = starts;
      this.#to = ends;
    }
    this.#bytes[this.#length] = byte;
    this.#from[this.#length] = from;
    this.#to[this.#length] = to;
    this.#length += 1;
  }

  flush(): void {
    if (this.#length >= 8) {
      if (this.#out.length > 0) this.#out.pushCode(0, -1, -1);
      for (let index = 0; index < this.#length; index += 1) {
        this.#out.pushCode(
          this.#bytes[index] as number,
          this.#from[index] as number,
          this.#to[index] as number,
        );
      }
    }
    this.#length = 0;
  }
}

const BASE64_RUNS = new WeakMap<View, Int32Array[]>();

/** The runs of base64 characters in `view` of `MIN_BASE64_RUN` or more, found once per view (two decoders read them). */
export function base64Runs(view: View): Int32Array[] {
  let runs = BASE64_RUNS.get(view);
  if (runs === undefined) {
    runs = runsOf(view.text, BASE64_VALUES, MIN_BASE64_RUN);
    BASE64_RUNS.set(view, runs);
  }
  return runs;
}
