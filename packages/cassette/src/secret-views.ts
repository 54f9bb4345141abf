/**
 * Decoded views of a text: what a reader could decode out of it (JSON and
 * JavaScript escapes, percent-encoding, HTML entities, base64 at every
 * alignment, hex), each character mapped back to the characters of the source
 * it was decoded from, so a secret found in a view can be removed from the source.
 */

/** A text and, for each of its UTF-16 units, the range `[from, to)` of the source text it came from. */
export interface View {
  readonly text: string;
  readonly from: Int32Array;
  readonly to: Int32Array;
  /** How it was decoded: `as is`, or the decodings from the source, outermost first. */
  readonly form: string;
}

/** The text as is. */
function identityView(text: string): View {
  const from = new Int32Array(text.length);
  const to = new Int32Array(text.length);
  for (let index = 0; index < text.length; index += 1) {
    from[index] = index;
    to[index] = index + 1;
  }
  return { text, from, to, form: 'as is' };
}

/** Builds a decoded text with a source range per unit, in typed arrays (views of megabytes are common). */
class ViewBuilder {
  #units: Uint16Array;
  #from: Int32Array;
  #to: Int32Array;
  #length = 0;

  constructor(capacity: number) {
    const size = Math.max(16, capacity);
    this.#units = new Uint16Array(size);
    this.#from = new Int32Array(size);
    this.#to = new Int32Array(size);
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
    const size = this.#units.length * 2;
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

  /** The view over `source`, its ranges translated through the source's own. */
  build(source: View, form: string): View {
    const count = this.#length;
    const from = new Int32Array(count);
    const to = new Int32Array(count);
    for (let index = 0; index < count; index += 1) {
      const start = this.#from[index] as number;
      const end = this.#to[index] as number;
      from[index] = start < 0 ? -1 : (source.from[start] as number);
      to[index] = start < 0 ? -1 : (source.to[end - 1] as number);
    }
    let text = '';
    for (let offset = 0; offset < count; offset += 8192) {
      text += String.fromCharCode(...this.#units.subarray(offset, Math.min(count, offset + 8192)));
    }
    const label = source.form === 'as is' ? form : `${form} of ${source.form}`;
    return { text, from, to, form: label };
  }
}

type Decoder = (view: View) => View | readonly View[] | null;

const SIMPLE_ESCAPES: Readonly<Record<string, string>> = {
  '/': '/',
  '\\': '\\',
  '"': '"',
  "'": "'",
  n: '\n',
  r: '\r',
  t: '\t',
  b: '\b',
  f: '\f',
  v: '\v',
  '0': '\0',
};

/** JSON and JavaScript escapes: `\uXXXX`, `\u{X...}`, `\xXX`, `\/` and the one-letter ones. */
function decodeEscapes(view: View): View | null {
  const text = view.text;
  if (!text.includes('\\')) return null;
  const out = new ViewBuilder(text.length);
  let decoded = false;
  for (let index = 0; index < text.length; ) {
    const unit = text[index] as string;
    if (unit === '\\' && index + 1 < text.length) {
      const next = text[index + 1] as string;
      const hex4 = next === 'u' ? /^[0-9a-fA-F]{4}/.exec(text.slice(index + 2, index + 6)) : null;
      const braced = next === 'u' ? /^\{([0-9a-fA-F]{1,6})\}/.exec(text.slice(index + 2, index + 10)) : null;
      const hex2 = next === 'x' ? /^[0-9a-fA-F]{2}/.exec(text.slice(index + 2, index + 4)) : null;
      let value: string | null = null;
      let length = 0;
      if (hex4) {
        value = String.fromCharCode(Number.parseInt(hex4[0], 16));
        length = 6;
      } else if (braced && Number.parseInt(braced[1] as string, 16) <= 0x10ffff) {
        value = String.fromCodePoint(Number.parseInt(braced[1] as string, 16));
        length = 3 + (braced[0]?.length ?? 0) - 1;
      } else if (hex2) {
        value = String.fromCharCode(Number.parseInt(hex2[0], 16));
        length = 4;
      } else if (SIMPLE_ESCAPES[next] !== undefined) {
        value = SIMPLE_ESCAPES[next] as string;
        length = 2;
      }
      if (value !== null) {
        out.push(value, index, index + length);
        index += length;
        decoded = true;
        continue;
      }
    }
    out.pushCode(text.charCodeAt(index), index, index + 1);
    index += 1;
  }
  return decoded ? out.build(view, 'escaped') : null;
}

/** `%XX` as the byte it stands for (bytes as Latin-1 units; the secrets are searched in their UTF-8 bytes too). */
function percentDecode(view: View): View | null {
  const text = view.text;
  if (!/%[0-9a-fA-F]{2}/.test(text)) return null;
  const out = new ViewBuilder(text.length);
  for (let index = 0; index < text.length; ) {
    if (text[index] === '%' && /^[0-9a-fA-F]{2}$/.test(text.slice(index + 1, index + 3))) {
      out.pushCode(Number.parseInt(text.slice(index + 1, index + 3), 16), index, index + 3);
      index += 3;
      continue;
    }
    out.pushCode(text.charCodeAt(index), index, index + 1);
    index += 1;
  }
  return out.build(view, 'percent-encoded');
}

/** Named entities of the characters a key or a credential can hold. */
const NAMED_ENTITIES: Readonly<Record<string, string>> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  sol: '/',
  bsol: '\\',
  colon: ':',
  semi: ';',
  equals: '=',
  plus: '+',
  minus: '\u2212',
  hyphen: '\u2010',
  dash: '\u2010',
  lowbar: '_',
  UnderBar: '_',
  period: '.',
  comma: ',',
  excl: '!',
  quest: '?',
  num: '#',
  dollar: '$',
  percnt: '%',
  ast: '*',
  midast: '*',
  commat: '@',
  lpar: '(',
  rpar: ')',
  lsqb: '[',
  lbrack: '[',
  rsqb: ']',
  rbrack: ']',
  lcub: '{',
  lbrace: '{',
  rcub: '}',
  rbrace: '}',
  verbar: '|',
  vert: '|',
  VerticalLine: '|',
  tilde: '~',
  grave: '`',
  Hat: '^',
  nbsp: '\u00a0',
  Tab: '\t',
  NewLine: '\n',
};

const ENTITY = /&(?:#(\d{1,7})|#[xX]([0-9a-fA-F]{1,6})|([A-Za-z]{2,12}));?/y;

/** HTML character references: decimal, hexadecimal and the named ones of {@link NAMED_ENTITIES}. */
function htmlDecode(view: View): View | null {
  const text = view.text;
  if (!text.includes('&')) return null;
  const out = new ViewBuilder(text.length);
  let decoded = false;
  for (let index = 0; index < text.length; ) {
    if (text[index] === '&') {
      ENTITY.lastIndex = index;
      const match = ENTITY.exec(text);
      if (match !== null) {
        const [whole, decimal, hex, name] = match;
        const code =
          decimal !== undefined ? Number(decimal) : hex !== undefined ? Number.parseInt(hex, 16) : -1;
        const value =
          code >= 0
            ? code <= 0x10ffff
              ? String.fromCodePoint(code)
              : null
            : name !== undefined && whole.endsWith(';')
              ? (NAMED_ENTITIES[name] ?? null)
              : null;
        if (value !== null) {
          out.push(value, index, index + whole.length);
          index += whole.length;
          decoded = true;
          continue;
        }
      }
    }
    out.pushCode(text.charCodeAt(index), index, index + 1);
    index += 1;
  }
  return decoded ? out.build(view, 'HTML entities') : null;
}

const BASE64_VALUES = (() => {
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

/**
 * Runs of characters of an alphabet, as the indices of their characters: line
 * breaks (and `\n` escapes, as MIME and JSON break long base64) inside a run are skipped.
 */
function runsOf(text: string, inAlphabet: (code: number) => boolean, minimum: number): number[][] {
  const runs: number[][] = [];
  let run: number[] = [];
  const flush = () => {
    if (run.length >= minimum) runs.push(run);
    run = [];
  };
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    if (inAlphabet(code)) {
      run.push(index);
      continue;
    }
    if (run.length > 0 && (code === 10 || code === 13)) continue;
    if (run.length > 0 && code === 92 && (text[index + 1] === 'n' || text[index + 1] === 'r')) {
      index += 1;
      continue;
    }
    flush();
  }
  flush();
  return runs;
}

/**
 * Collects the bytes decoded from one run, with the source range of each, and
 * passes on only their printable runs of 8 bytes or more (each apart): a key or
 * a credential is printable text, and megabytes of binary noise (an image) are
 * never built into a view.
 */
class PrintableBytes {
  readonly #out: ViewBuilder;
  #bytes = new Uint8Array(64);
  #from = new Int32Array(64);
  #to = new Int32Array(64);
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
      const bytes = new Uint8Array(this.#length * 2);
      bytes.set(this.#bytes);
      const starts = new Int32Array(this.#length * 2);
      starts.set(this.#from);
      const ends = new Int32Array(this.#length * 2);
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

/**
 * Base64 (standard and URL-safe alphabets, padding or not), decoded from each of
 * the 4 characters a run may start at, so data at any byte offset of any blob is
 * seen (all 3 alignments of a secret in it): 4 views of the printable bytes (as Latin-1 units).
 */
function base64Decode(view: View): View[] | null {
  const runs = runsOf(
    view.text,
    (code) => code < 128 && (BASE64_VALUES[code] as number) >= 0,
    MIN_BASE64_RUN,
  );
  if (runs.length === 0) return null;
  const views: View[] = [];
  for (let offset = 0; offset < 4; offset += 1) {
    const out = new ViewBuilder(256);
    const bytes = new PrintableBytes(out);
    for (const run of runs) {
      bytes.flush();
      let bits = 0;
      let buffered = 0;
      let first = -1;
      for (let position = offset; position < run.length; position += 1) {
        const index = run[position] as number;
        if (first < 0) first = index;
        bits = (bits << 6) | (BASE64_VALUES[view.text.charCodeAt(index)] as number);
        buffered += 6;
        if (buffered >= 8) {
          buffered -= 8;
          bytes.push((bits >> buffered) & 0xff, first, index + 1);
          bits &= (1 << buffered) - 1;
          // The next byte starts in this character when bits of it are left over.
          first = buffered > 0 ? index : -1;
        }
      }
    }
    bytes.flush();
    if (out.length > 0) views.push(out.build(view, 'base64'));
  }
  return views;
}

/** Hex pairs, from both alignments, as bytes (the printable ones, as Latin-1 units). */
function hexDecode(view: View): View[] | null {
  const isHex = (code: number) =>
    (code >= 48 && code <= 57) || (code >= 65 && code <= 70) || (code >= 97 && code <= 102);
  const runs = runsOf(view.text, isHex, 16);
  if (runs.length === 0) return null;
  const views: View[] = [];
  for (let offset = 0; offset < 2; offset += 1) {
    const out = new ViewBuilder(256);
    const bytes = new PrintableBytes(out);
    for (const run of runs) {
      bytes.flush();
      for (let position = offset; position + 1 < run.length; position += 2) {
        const high = run[position] as number;
        const low = run[position + 1] as number;
        const byte =
          Number.parseInt(view.text[high] as string, 16) * 16 + Number.parseInt(view.text[low] as string, 16);
        bytes.push(byte, high, low + 1);
      }
    }
    bytes.flush();
    if (out.length > 0) views.push(out.build(view, 'hex'));
  }
  return views;
}

const DECODERS: readonly Decoder[] = [decodeEscapes, percentDecode, htmlDecode, base64Decode, hexDecode];

/** How many decodings deep views go: a secret encoded twice (base64 of a percent-encoded one, say) is seen. */
const VIEW_DEPTH = 2;

/**
 * Calls `visit` with the text as is and every view decoded out of it, up to
 * {@link VIEW_DEPTH} decodings deep, depth first (each view is dropped once visited).
 */
export function forEachView(text: string, visit: (view: View) => void): void {
  const walk = (view: View, depth: number): void => {
    visit(view);
    if (depth >= VIEW_DEPTH) return;
    for (const decoder of DECODERS) {
      const decoded = decoder(view);
      if (decoded === null) continue;
      for (const next of Array.isArray(decoded) ? decoded : [decoded as View]) {
        if (next.text !== view.text) walk(next, depth + 1);
      }
    }
  };
  walk(identityView(text), 0);
}
