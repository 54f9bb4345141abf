import { isRecord } from './read-field.js';

// Put where the content was, to prove the cut; never sent or written anywhere.
const MARKER = 'sb-content-probe-5f0c7e1a';

/**
 * A chat stream chunk's bytes around the text of its `choices[0].delta.content`:
 * what lets a later chunk that differs only in that text be read without
 * `JSON.parse` (most of a reply streams as such chunks: the same id, model and
 * fields, the text changing). The cut is proved when it is made, by parsing the
 * chunk again with a marker in the text's place (the marker must come back as
 * the content, and everything else as before), so a text that also stands
 * elsewhere in the chunk is never cut at the wrong place. Used by the adapter's
 * stream reader and by `@switchboard/cassette`'s recorder.
 */
export class ContentCut {
  readonly #before: string;
  readonly #after: string;
  /** The whole match as one anchored expression (see `patternOf`), or null: compared by slices. */
  readonly #pattern: RegExp | null;
  /** Where a matching chunk's text starts, and how many units after it end the chunk. */
  readonly #textStart: number;
  readonly #textTail: number;

  private constructor(before: string, after: string) {
    this.#before = before;
    this.#after = after;
    this.#pattern = patternOf(before, after);
    this.#textStart = before.length + 1;
    this.#textTail = after.length + 1;
  }

  /**
   * The proved cut of `data` (whose `JSON.parse` is `chunk`) around its first choice's
   * `delta.content`, or null when that is not a non-empty string without escapes or control
   * characters, or no place of it proves.
   */
  static of(data: string, chunk: unknown): ContentCut | null {
    const text = contentOf(chunk);
    if (text === null || text === '' || !verbatim(text)) return null;
    const literal = `"${text}"`;
    const whole = JSON.stringify(chunk);
    // A serializer writes a delta's content after the chunk's id and model: try the last place first.
    for (
      let at = data.lastIndexOf(literal);
      at >= 0;
      at = at === 0 ? -1 : data.lastIndexOf(literal, at - 1)
    ) {
      const before = data.slice(0, at);
      const after = data.slice(at + literal.length);
      if (provesCut(before, after, text, whole)) return newContentCut(before, after);
    }
    return null;
  }

  /**
   * The content text of `data` when it is exactly the cut's bytes around a JSON string without
   * escapes or control characters (so it parses as the cut chunk with that text), else null
   * (parse it).
   */
  match(data: string): string | null {
    const pattern = this.#pattern;
    if (pattern !== null) {
      return pattern.test(data) ? data.slice(this.#textStart, data.length - this.#textTail) : null;
    }
    const before = this.#before;
    const end = data.length - this.#after.length;
    // The two quotes and at least one character: an empty text is parsed in full.
    if (end - before.length < 3) return null;
    // Compared as cut-out strings: string equality compares memory at once, where `startsWith` of a
    // hundred characters went a character at a time (about ten times slower on a chunk).
    if (data.slice(0, before.length) !== before || data.slice(end) !== this.#after) return null;
    if (data.charCodeAt(before.length) !== 34 || data.charCodeAt(end - 1) !== 34) return null;
    const text = data.slice(before.length + 1, end - 1);
    return verbatim(text) ? text : null;
  }
}

/** The longest cut (bytes before and after the text together) matched by one expression; a longer one by slices. */
const MAX_PATTERN_CUT = 16 * 1024;

/** Characters with a meaning in an expression, escaped to stand for themselves. */
const SYNTAX = /[\\^$.*+?()[\]{}|/]/g;

/**
 * `before`, a JSON string of one or more units without a quote, backslash or control character
 * (as `verbatim` reads them), `after`, and nothing else: one anchored expression, which compares
 * the bytes without cutting strings out of the chunk (about twice as fast as the slices, and no
 * garbage). Without the `u` flag it reads UTF-16 units, as `verbatim` does; `$` without `m` is
 * only the end. Null for a cut too long to be worth compiling, or one the engine refuses.
 */
function patternOf(before: string, after: string): RegExp | null {
  if (before.length + after.length > MAX_PATTERN_CUT) return null;
  try {
    return new RegExp(
      `^${before.replace(SYNTAX, '\\$&')}"[^"\\\\\\u0000-\\u001f]+"${after.replace(SYNTAX, '\\$&')}$`,
    );
  } catch {
    return null;
  }
}

// Made outside the class body: a class that names itself inside its body comes out of the build
// renamed (`_ContentCut`, see tsup.config.base.ts); its constructor stays private to callers.
function newContentCut(before: string, after: string): ContentCut {
  return new (ContentCut as unknown as new (before: string, after: string) => ContentCut)(before, after);
}

/** Text a JSON string holds as it is: no quote, backslash or control character (those are escaped). */
export function verbatim(text: string): boolean {
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    if (code < 32 || code === 34 || code === 92) return false;
  }
  return true;
}

/** The first choice's `delta.content`, when a string; else null. */
function contentOf(chunk: unknown): string | null {
  if (!isRecord(chunk) || !Array.isArray(chunk.choices)) return null;
  const choice: unknown = chunk.choices[0];
  if (!isRecord(choice) || !isRecord(choice.delta)) return null;
  return typeof choice.delta.content === 'string' ? choice.delta.content : null;
}

/** Whether the marker between `before` and `after` parses as the content, everything else as in `whole`. */
function provesCut(before: string, after: string, text: string, whole: string): boolean {
  let probe: unknown;
  try {
    probe = JSON.parse(`${before}"${MARKER}"${after}`);
  } catch {
    return false;
  }
  if (contentOf(probe) !== MARKER) return false;
  const delta = ((probe as { choices: Record<string, unknown>[] }).choices[0] as Record<string, unknown>)
    .delta as Record<string, unknown>;
  delta.content = text;
  return JSON.stringify(probe) === whole;
}
