import { isRecord } from './read-field.js';

/** How many times one stream may learn a template: a server whose chunks never repeat stops paying for the probe. */
const MAX_LEARNINGS = 4;

// Put where the content was, to prove the cut; never sent anywhere.
const MARKER = 'sb-content-probe-5f0c7e1a';

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
  #before: string | null = null;
  #after = '';
  #learnings = 0;

  /** The content text of `data` when it matches the learned chunk, else null (parse it). */
  match(data: string): string | null {
    const before = this.#before;
    if (before === null) return null;
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

  /** Offers a chunk read in full (`chunk` is `JSON.parse(data)`); learned when it has the shape above. */
  learn(data: string, chunk: Record<string, unknown>): void {
    if (this.#learnings >= MAX_LEARNINGS) return;
    const text = contentOnly(chunk);
    if (text === null || !verbatim(text)) return;
    this.#learnings += 1;
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
      if (provesCut(before, after, text, whole)) {
        this.#before = before;
        this.#after = after;
        this.model = chunk.model;
        return;
      }
    }
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

/** Whether the marker between `before` and `after` parses as the content, everything else as in `whole`. */
function provesCut(before: string, after: string, text: string, whole: string): boolean {
  let probe: unknown;
  try {
    probe = JSON.parse(`${before}"${MARKER}"${after}`);
  } catch {
    return false;
  }
  if (contentOnly(probe) !== MARKER) return false;
  const delta = ((probe as { choices: Record<string, unknown>[] }).choices[0] as Record<string, unknown>)
    .delta as Record<string, unknown>;
  delta.content = text;
  return JSON.stringify(probe) === whole;
}
