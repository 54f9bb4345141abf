/**
 * Decoded views of a text: what a reader could decode out of it (NFKC without
 * invisible characters and without separators, JSON and JavaScript escapes,
 * percent-encoding, HTML entities, base64 at every alignment, hex, gzip and zlib
 * in base64), each character mapped back to the characters of the source it was
 * decoded from, so a secret found in a view can be removed from the source.
 */

import { compressedDecode, type InflateBudget, inflateBudget } from './compressed-view.js';
import { normalisedViews } from './normalised-view.js';
import {
  BASE64_VALUES,
  base64Runs,
  identityView,
  PrintableBytes,
  runsOf,
  type View,
  ViewBuilder,
} from './view-builder.js';

export type { View };

type Decoder = (view: View, budget: InflateBudget) => View | readonly View[] | null;

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

/**
 * Base64 (standard and URL-safe alphabets, padding or not), decoded from each of
 * the 4 characters a run may start at, so data at any byte offset of any blob is
 * seen (all 3 alignments of a secret in it): 4 views of the printable bytes (as Latin-1 units).
 */
function base64Decode(view: View): View[] | null {
  const runs = base64Runs(view);
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

/** Each ASCII character's value as a hex digit, or -1. */
const HEX_VALUES = (() => {
  const values = new Int8Array(128).fill(-1);
  const digits = '0123456789abcdef';
  for (let index = 0; index < 16; index += 1) {
    values[digits.charCodeAt(index)] = index;
    values[digits.toUpperCase().charCodeAt(index)] = index;
  }
  return values;
})();

/** The fewest hex digits worth decoding: 8 bytes (the shortest secret). */
const MIN_HEX_RUN = 16;

/**
 * The runs of hex digits in `view` of `MIN_HEX_RUN` or more (as `runsOf` finds them). Each lies
 * within a run of base64 characters (hex digits are base64 characters, and both runs go on over
 * the same line breaks), so in a view whose base64 runs were found (every view but a spaced-out
 * one, where only hex is decoded) they are cut out of those: a long text without base64 is not
 * read again. A spaced-out view's words run together into one long base64 run: read for hex alone.
 */
function hexRuns(view: View): Int32Array[] {
  if (view.spacedOut === true) return runsOf(view.text, HEX_VALUES, MIN_HEX_RUN);
  const runs: Int32Array[] = [];
  for (const run of base64Runs(view)) {
    let start = 0;
    for (let position = 0; position <= run.length; position += 1) {
      const code = position < run.length ? view.text.charCodeAt(run[position] as number) : -1;
      if (code >= 0 && (HEX_VALUES[code] as number) >= 0) continue;
      if (position - start >= MIN_HEX_RUN) runs.push(run.subarray(start, position));
      start = position + 1;
    }
  }
  return runs;
}

/** Hex pairs, from both alignments, as bytes (the printable ones, as Latin-1 units). */
function hexDecode(view: View): View[] | null {
  const runs = hexRuns(view);
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
          (HEX_VALUES[view.text.charCodeAt(high)] as number) * 16 +
          (HEX_VALUES[view.text.charCodeAt(low)] as number);
        bytes.push(byte, high, low + 1);
      }
    }
    bytes.flush();
    if (out.length > 0) views.push(out.build(view, 'hex'));
  }
  return views;
}

const DECODERS: readonly Decoder[] = [
  normalisedViews,
  decodeEscapes,
  percentDecode,
  htmlDecode,
  base64Decode,
  hexDecode,
  compressedDecode,
];

const SPACED_OUT_DECODERS: readonly Decoder[] = [hexDecode];

/** How many decodings deep views go: a secret encoded twice (base64 of a percent-encoded one, say) is seen. */
const VIEW_DEPTH = 2;

/**
 * Calls `visit` with the text as is and every view decoded out of it, up to
 * {@link VIEW_DEPTH} decodings deep, depth first (each view is dropped once visited).
 */
export function forEachView(text: string, visit: (view: View) => void): void {
  const budget = inflateBudget(text);
  const walk = (view: View, depth: number): void => {
    visit(view);
    if (depth >= VIEW_DEPTH) return;
    // Words run together in a spaced-out view: only hex is decoded there (`73 6b 2d` as `736b2d`).
    for (const decoder of view.spacedOut === true ? SPACED_OUT_DECODERS : DECODERS) {
      const decoded = decoder(view, budget);
      if (decoded === null) continue;
      for (const next of Array.isArray(decoded) ? decoded : [decoded as View]) {
        if (next.text !== view.text || next.opaque !== undefined) walk(next, depth + 1);
      }
    }
  };
  walk(identityView(text), 0);
}
