import { countTokens } from '../tokens/tokenize.js';

/**
 * Counts the completion tokens of streamed deltas as the emulator counts a
 * whole reply's: the content, the reasoning (`reasoning_content` or the
 * gateway's `reasoning`; `reasoning_details` repeat it and are not counted)
 * and each tool call's name and arguments text.
 */
export class GeneratedTokens {
  #content = 0;
  #reasoning = 0;
  readonly #calls: string[] = [];

  /** Adds the text of one chunk's delta (a chunk without a choice adds nothing). */
  add(chunk: Record<string, unknown>): void {
    const choices = chunk.choices;
    if (!Array.isArray(choices)) return;
    const delta = (choices[0] as { delta?: Record<string, unknown> } | undefined)?.delta;
    if (delta === undefined || delta === null) return;
    // Content and reasoning arrive cut at token ends, so their pieces' counts add up exactly.
    if (typeof delta.content === 'string') this.#content += countTokens(delta.content);
    const reasoning = delta.reasoning_content ?? delta.reasoning;
    if (typeof reasoning === 'string') this.#reasoning += countTokens(reasoning);
    if (Array.isArray(delta.tool_calls)) {
      for (const fragment of delta.tool_calls as { index?: number; function?: Record<string, unknown> }[]) {
        const index = fragment.index ?? 0;
        const name = fragment.function?.name;
        const text = fragment.function?.arguments;
        const sofar = this.#calls[index] ?? '';
        this.#calls[index] =
          `${sofar}${typeof name === 'string' ? `${name} ` : ''}${typeof text === 'string' ? text : ''}`;
      }
    }
  }

  /** Reasoning tokens so far. */
  get reasoningTokens(): number {
    return this.#reasoning;
  }

  /** Completion tokens so far. */
  get completionTokens(): number {
    // Arguments arrive in pieces of characters that may split a token: count each call's text whole.
    let calls = 0;
    for (const text of this.#calls) calls += text === undefined ? 0 : countTokens(text);
    return this.#content + this.#reasoning + calls;
  }
}
