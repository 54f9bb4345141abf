import { sourceEnd, sourceStart, type View, ViewBuilder } from './view-builder.js';

/**
 * Characters a reader does not see, or reads past: format characters (U+200B
 * and the other zero-width ones, U+FEFF, soft hyphens, bidi controls, tags),
 * combining marks (variation selectors, U+034F) and the Hangul fillers.
 */
const INVISIBLE = /^[\p{Cf}\p{Mn}\p{Me}\u115F\u1160\u3164\uFFA0]$/u;

/** Separators a key may be spelled out with: any space or line break, and `:` `,` (hex as `73:6b`). */
const SEPARATOR = /^[\s\p{Z},:]$/u;

/** What one character becomes: its NFKC form, `''` when invisible, and whether that form is a separator. */
interface Normalised {
  readonly text: string;
  readonly separator: boolean;
}

const ASCII: readonly Normalised[] = Array.from({ length: 128 }, (_, code) => {
  const text = String.fromCharCode(code);
  return { text, separator: SEPARATOR.test(text) };
});

/** 1 for an ASCII separator (as `ASCII[code].separator`), one read per character of a long text. */
const ASCII_SEPARATOR = Uint8Array.from(ASCII, (entry) => (entry.separator ? 1 : 0));

/** Characters past ASCII seen so far (a text repeats few of them): bounded, so a text of every character cannot grow it. */
const SEEN = new Map<number, Normalised>();
const MAX_SEEN = 4096;

function normalised(code: number): Normalised {
  if (code < 128) return ASCII[code] as Normalised;
  const known = SEEN.get(code);
  if (known !== undefined) return known;
  const character = String.fromCodePoint(code);
  const text = INVISIBLE.test(character) ? '' : character.normalize('NFKC');
  const made = { text, separator: text !== '' && [...text].every((unit) => SEPARATOR.test(unit)) };
  if (SEEN.size < MAX_SEEN) SEEN.set(code, made);
  return made;
}

/**
 * The text as a reader reads it, one character at a time: each in its NFKC form
 * (full-width `ｓｋ－` as `sk-`), invisible characters left out (a key with U+200B
 * between its characters); and the same again with the separators left out too
 * (a key spaced out, hex as `73 6b` or `73:6b`), where only the keys and hex are
 * looked for (words run together there). A view the same as its source is left out.
 */
export function normalisedViews(view: View): View[] | null {
  const text = view.text;
  let separators = false;
  let ascii = true;
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    if (code >= 128) {
      ascii = false;
      break;
    }
    if ((ASCII[code] as Normalised).separator) separators = true;
  }
  if (ascii) return separators ? [asciiSpacedOut(view)] : null;
  const readable = new ViewBuilder(text.length);
  const compact = new ViewBuilder(text.length);
  let changed = false;
  for (let index = 0; index < text.length; ) {
    const code = text.codePointAt(index) as number;
    if (code < 128) {
      readable.pushCode(code, index, index + 1);
      if (!(ASCII[code] as Normalised).separator) compact.pushCode(code, index, index + 1);
      index += 1;
      continue;
    }
    // Bytes read as Latin-1 (a percent-encoded text, logprobs' bytes) that spell UTF-8 are read as what they spell.
    const encoded = utf8At(text, index);
    const point = encoded?.code ?? code;
    const width = encoded?.length ?? (code > 0xffff ? 2 : 1);
    const { text: form, separator } = normalised(point);
    if (encoded !== null || form !== String.fromCodePoint(code)) changed = true;
    readable.push(form, index, index + width);
    if (!separator) compact.push(form, index, index + width);
    index += width;
  }
  const views = changed ? [readable.build(view, 'normalised')] : [];
  views.push(compact.build(view, 'spaced out', { spacedOut: true }));
  return views;
}

/**
 * The character the UTF-8 bytes at `index` spell, when the text holds them as
 * units below 256 (a lead byte and its continuation bytes, no overlong form, no
 * surrogate); else null.
 */
function utf8At(text: string, index: number): { code: number; length: number } | null {
  const lead = text.charCodeAt(index);
  const length =
    lead >= 0xc2 && lead <= 0xdf
      ? 2
      : lead >= 0xe0 && lead <= 0xef
        ? 3
        : lead >= 0xf0 && lead <= 0xf4
          ? 4
          : 0;
  if (length === 0 || index + length > text.length) return null;
  let code = lead & (0x7f >> length);
  for (let offset = 1; offset < length; offset += 1) {
    const unit = text.charCodeAt(index + offset);
    if (unit < 0x80 || unit > 0xbf) return null;
    code = (code << 6) | (unit & 0x3f);
  }
  const smallest = length === 3 ? 0x800 : length === 4 ? 0x10000 : 0x80;
  if (code < smallest || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) return null;
  return { code, length };
}

/**
 * An ASCII text's spaced-out view (the common case: a reply's text). Where each of its units
 * came from is worked out only when something asks (a finding to map back, a decoding of it):
 * most views of a long reply are scanned and dropped, and their map would be megabytes.
 */
function asciiSpacedOut(view: View): View {
  let ranges: { readonly from: Int32Array; readonly to: Int32Array | null } | null = null;
  const mapped = () => {
    ranges ??= spacedOutRanges(view);
    return ranges;
  };
  return {
    text: withoutAsciiSeparators(view.text),
    get from() {
      return mapped().from;
    },
    get to() {
      return mapped().to;
    },
    form: view.form === 'as is' ? 'spaced out' : `spaced out of ${view.form}`,
    spacedOut: true,
  };
}

/**
 * An ASCII text without its separators, made in one pass into a byte buffer: a
 * replace by a pattern matching 100,000 spaces builds a list of every piece first.
 */
function withoutAsciiSeparators(text: string): string {
  const kept = Buffer.allocUnsafe(text.length);
  let length = 0;
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    if (ASCII_SEPARATOR[code] !== 1) {
      kept[length] = code;
      length += 1;
    }
  }
  return kept.toString('latin1', 0, length);
}

/** Where each unit of an ASCII text's spaced-out view came from in the source (see `View`). */
function spacedOutRanges(view: View): { from: Int32Array; to: Int32Array | null } {
  const text = view.text;
  const from = new Int32Array(text.length);
  const to = view.to === null ? null : new Int32Array(text.length);
  let kept = 0;
  for (let index = 0; index < text.length; index += 1) {
    if (ASCII_SEPARATOR[text.charCodeAt(index)] === 1) continue;
    from[kept] = sourceStart(view, index);
    if (to !== null) to[kept] = sourceEnd(view, index);
    kept += 1;
  }
  return { from: from.subarray(0, kept), to: to === null ? null : to.subarray(0, kept) };
}

/** `text` as the spaced-out view reads it (a key looked for there): NFKC, no invisible characters, no separators. */
export function withoutSeparators(text: string): string {
  let out = '';
  for (const character of text) {
    const { text: form, separator } = normalised(character.codePointAt(0) as number);
    if (!separator) out += form;
  }
  return out;
}
