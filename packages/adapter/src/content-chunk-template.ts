import { ContentCut, verbatim } from './content-cut.js';
import { isRecord } from './read-field.js';

/** How many times one stream may learn a template: a server whose chunks never repeat stops paying for the probe. */
const MAX_LEARNINGS = 4;

/**
 * Recognises the common chunk of a chat stream without parsing it: one that
 * differs from an earlier, fully parsed chunk only in the text of
 * `choices[0].delta.content`. Most of a reply streams as such chunks (the same
 * id, model and fields, the text changing), and `JSON.parse` is most of what
 * reading one costs.
 *
 * A chunk is learned when its first choice carries content text and nothing
 * else a reader takes (no reasoning, tool calls, logprobs, finish reason, usage
 * or error): the text is cut out, leaving the bytes before and after it. The
 * cut is proved by parsing the chunk again with a marker in its place (the
 * marker must come back as the content, and everything else as before), so a
 * text that also stands elsewhere in the chunk is never cut at the wrong place.
 * A later chunk matches when it has exactly those bytes around a JSON string
 * without escapes or control characters: one string token where the text was,
 * so `JSON.parse` would give the learned chunk with that text. Anything else is
 * parsed in full.
 */
export class ContentChunkTemplate {
  /** The learned chunk's `model` (what a matching chunk carries too). */
  model: unknown;
  #cut: ContentCut | null = null;
  #learnings = 0;

  /** The content text of `data` when it matches the learned chunk, else null (parse it). */
  match(data: string): string | null {
    const cut = this.#cut;
    return cut === null ? null : cut.match(data);
  }

  /** Offers a chunk read in full (`chunk` is `JSON.parse(data)`); learned when it has the shape above. */
  learn(data: string, chunk: Record<string, unknown>): void {
    if (this.#learnings >= MAX_LEARNINGS) return;
    const text = contentOnly(chunk);
    if (text === null || !verbatim(text)) return;
    this.#learnings += 1;
    const cut = ContentCut.of(data, chunk);
    if (cut !== null) {
      this.#cut = cut;
      this.model = chunk.model;
    }
  }
}

/**
 * The first choice's content text, when that is all the chunk carries that a
 * stream's reader takes (`StreamAssembly.accept`); else null.
 */
function contentOnly(chunk: unknown): string | null {
  if (!isRecord(chunk) || (chunk.error !== undefined && chunk.error !== null) || isRecord(chunk.usage)) {
    return null;
  }
  const choices = chunk.choices;
  if (!Array.isArray(choices) || choices.length === 0) return null;
  const choice: unknown = choices[0];
  if (!isRecord(choice) || isRecord(choice.logprobs) || typeof choice.finish_reason === 'string') return null;
  const delta = choice.delta;
  if (!isRecord(delta)) return null;
  if (
    typeof delta.reasoning_content === 'string' ||
    typeof delta.reasoning === 'string' ||
    Array.isArray(delta.reasoning_details) ||
    Array.isArray(delta.tool_calls)
  ) {
    return null;
  }
  return typeof delta.content === 'string' && delta.content !== '' ? delta.content : null;
}
