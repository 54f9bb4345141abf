import { ContentCut } from '@switchboard/adapter';
import { isRecord } from './json-paths.js';

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
  /**
   * The bytes before the content's opening quote and after its closing quote: a
   * matching chunk is exactly `before`, its text as a JSON string, `after` (null
   * when they could not be told apart, see `piecesOf`).
   */
  readonly pieces: readonly [string, string] | null;
  readonly #cut: ContentCut;

  private constructor(
    chunk: Record<string, unknown>,
    cut: ContentCut,
    pieces: readonly [string, string] | null,
  ) {
    this.chunk = chunk;
    this.#cut = cut;
    this.pieces = pieces;
  }

  /** A template of `data` (whose parse is `chunk`), or null when it is not such a chunk or the cut cannot be proved. */
  static learn(data: string, chunk: unknown): ChunkTemplate | null {
    const cut = ContentCut.of(data, chunk);
    if (cut === null) return null;
    return new ChunkTemplate(chunk as Record<string, unknown>, cut, piecesOf(cut, data, contentOf(chunk)));
  }

  /** The content text of `data` when it is this chunk with another text, else null (parse it). */
  match(data: string): string | null {
    return this.#cut.match(data);
  }
}

/** Learns templates from a stream's parsed chunks, at most `MAX_LEARNINGS`, and matches chunks against the last one. */
export class ChunkTemplates {
  #current: ChunkTemplate | null = null;
  #learnings = 0;

  /** The template chunks are matched against (the last one learned), or null while none is. */
  get current(): ChunkTemplate | null {
    return this.#current;
  }

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

// Put where the content was, to find the cut's place; never written anywhere.
const PROBE = 'sb-cut-place-3d9a';

/**
 * The cut's bytes before and after the content of `data` (the chunk it was proved
 * on, whose content is `text`): the place of `"text"` in `data` at which the cut
 * reads a probe put there as the content. The cut matches a chunk only when its
 * bytes around the text are exactly the cut's, so a probe found by the cut stands
 * where the cut's text does, unless `data` itself holds the probe (then: null).
 */
function piecesOf(cut: ContentCut, data: string, text: string | null): readonly [string, string] | null {
  if (text === null || data.includes(PROBE)) return null;
  const literal = `"${text}"`;
  for (let at = data.lastIndexOf(literal); at >= 0; at = at === 0 ? -1 : data.lastIndexOf(literal, at - 1)) {
    const before = data.slice(0, at);
    const after = data.slice(at + literal.length);
    if (cut.match(`${before}"${PROBE}"${after}`) === PROBE) return [before, after];
  }
  return null;
}

/** The first choice's `delta.content`, when a string; else null. */
function contentOf(chunk: unknown): string | null {
  if (!isRecord(chunk) || !Array.isArray(chunk.choices)) return null;
  const choice: unknown = chunk.choices[0];
  if (!isRecord(choice) || !isRecord(choice.delta)) return null;
  return typeof choice.delta.content === 'string' ? choice.delta.content : null;
}
