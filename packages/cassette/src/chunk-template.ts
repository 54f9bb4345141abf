import { isRecord } from './json-paths.js';

// Put where the content was, to prove the cut; never written anywhere.
const MARKER = 'sb-cassette-probe-3d9a61c4';

/** How many chunks one stream may learn from: a server whose chunks never repeat stops paying for the probe. */
const MAX_LEARNINGS = 4;

/**
 * A stream's common chunk, recognised without parsing it: one that differs from
 * an earlier, fully parsed chunk only in the text of `choices[0].delta.content`
 * (the same id, model and fields; most of a reply streams so). The learned
 * chunk's text is cut out, leaving the bytes before and after it, and the cut is
 * proved by parsing the chunk again with a marker in its place (the marker must
 * come back as the content, everything else as before). A later chunk matches
 * when it is exactly those bytes around a JSON string without escapes or control
 * characters, so it parses as the learned chunk with its own text.
 */
export class ChunkTemplate {
  /** The learned chunk, parsed (its strings are every matching chunk's, the content aside). */
  readonly chunk: Record<string, unknown>;
  readonly #before: string;
  readonly #after: string;

  private constructor(chunk: Record<string, unknown>, before: string, after: string) {
    this.chunk = chunk;
    this.#before = before;
    this.#after = after;
  }

  /** A template of `data` (whose parse is `chunk`), or null when it is not such a chunk or the cut cannot be proved. */
  static learn(data: string, chunk: unknown): ChunkTemplate | null {
    const text = contentOf(chunk);
    if (text === null || text === '' || !verbatim(text)) return null;
    const literal = `"${text}"`;
    const whole = JSON.stringify(chunk);
    for (
      let at = data.lastIndexOf(literal);
      at >= 0;
      at = at === 0 ? -1 : data.lastIndexOf(literal, at - 1)
    ) {
      const before = data.slice(0, at);
      const after = data.slice(at + literal.length);
      if (provesCut(before, after, text, whole))
        return new ChunkTemplate(chunk as Record<string, unknown>, before, after);
    }
    return null;
  }

  /** The content text of `data` when it is this chunk with another text, else null (parse it). */
  match(data: string): string | null {
    const before = this.#before;
    const end = data.length - this.#after.length;
    if (end - before.length < 3) return null;
    if (data.slice(0, before.length) !== before || data.slice(end) !== this.#after) return null;
    if (data.charCodeAt(before.length) !== 34 || data.charCodeAt(end - 1) !== 34) return null;
    const text = data.slice(before.length + 1, end - 1);
    return verbatim(text) ? text : null;
  }
}

/** Learns templates from a stream's parsed chunks, at most `MAX_LEARNINGS`, and matches chunks against the last one. */
export class ChunkTemplates {
  #current: ChunkTemplate | null = null;
  #learnings = 0;

  /** The template `data` matches, with its text; null when none does. */
  match(data: string): { template: ChunkTemplate; text: string } | null {
    const template = this.#current;
    if (template === null) return null;
    const text = template.match(data);
    return text === null ? null : { template, text };
  }

  /** Offers a chunk parsed in full (one that matched none). */
  learn(data: string, chunk: unknown): void {
    if (this.#learnings >= MAX_LEARNINGS || contentOf(chunk) === null) return;
    this.#learnings += 1;
    this.#current = ChunkTemplate.learn(data, chunk) ?? this.#current;
  }
}

/** Text a JSON string holds as it is: no quote, backslash or control character (those are escaped). */
function verbatim(text: string): boolean {
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
