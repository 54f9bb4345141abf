import { ChatError } from './chat-error.js';
import type { ChatDelta } from './chat-stream.js';
import { ContentChunkTemplate } from './content-chunk-template.js';
import { isRecord } from './read-field.js';
import { embeddedFailure } from './read-reply.js';
import { TextPieces } from './text-pieces.js';
import type { CallContext } from './to-chat-error.js';

/** What one data event of a chat stream gave. */
export type EventOutcome = 'done' | 'chunk';

/** The most tool calls one reply may open: past it the stream is `bad_reply` (a reply holds a handful). */
const MAX_TOOL_CALLS = 1024;

// Fields of a `reasoning_details` entry whose text arrives in pieces; the others are whole values.
const TEXT_FIELDS: ReadonlySet<string> = new Set(['text', 'summary', 'data']);

/**
 * Reads the data events of one streamed reply (`chat.completion.chunk` objects,
 * then `[DONE]`) into deltas, and assembles what they carried into the reply
 * message a plain call would have returned: content, `reasoning_content` /
 * `reasoning`, the gateway's `reasoning_details` (pieces merged by `index`),
 * tool calls (argument pieces joined by `index`), logprobs and finish reason,
 * plus the reply's `id`, `model` and `usage`.
 */
export class StreamAssembly {
  responseId: string | null = null;
  responseModel: string | null = null;
  finishReason: string | null = null;
  usage: Record<string, unknown> | null = null;
  /** `[DONE]` arrived. */
  done = false;
  /** UTF-8 bytes of the text deltas carried (content, reasoning, tool arguments): what an estimate counts. */
  outputBytes = 0;
  /** Non-empty text deltas carried (each holds at least one token): what an estimate counts too. */
  pieces = 0;
  // Whether the latest usage came with or after the finish reason (a final usage, not a running one).
  #usageFinal = false;

  readonly #content = new TextPieces();
  readonly #reasoningContent = new TextPieces();
  readonly #reasoning = new TextPieces();
  #details: Record<string, unknown>[] | null = null;
  #detailIndex: Map<unknown, Record<string, unknown>> | null = null;
  // Tool calls by the index the stream gave them: a Map, so a huge index never fills a gap.
  #toolCalls = new Map<number, { id: string | null; type: string; name: string; arguments: string }>();
  #logprobs: Record<string, unknown> | null = null;
  readonly #model: string;
  // Null when every event is to be parsed in full (a test's reference).
  readonly #template: ContentChunkTemplate | null;

  /**
   * @param model the model id as sent, to name it in errors
   * @param options.parseEveryEvent parse each event in full, never matching a learned chunk (for tests)
   */
  constructor(model: string, options: { parseEveryEvent?: boolean } = {}) {
    this.#model = model;
    this.#template = options.parseEveryEvent === true ? null : new ContentChunkTemplate();
  }

  /**
   * Reads one data event; pushes its deltas onto `deltas`. Throws a
   * `ChatError`: `bad_reply` for an event that is not a JSON object, the error
   * an event carries (typed like a 200 carrying an error) for an error event.
   */
  accept(data: string, event: string | undefined, deltas: ChatDelta[]): EventOutcome {
    if (data === '[DONE]') {
      this.done = true;
      return 'done';
    }
    // A chunk like a learned one but for its content text: what parsing it would do, without parsing it.
    const text = event === undefined ? (this.#template?.match(data) ?? null) : null;
    if (text !== null) {
      const model = (this.#template as ContentChunkTemplate).model;
      if (typeof model === 'string') this.responseModel = model;
      this.#content.add(text);
      this.#text('content', text, deltas);
      return 'chunk';
    }
    let chunk: unknown;
    try {
      chunk = JSON.parse(data);
    } catch {
      throw this.#malformed(`an event of the stream is not valid JSON (${data.length} characters)`);
    }
    if (!isRecord(chunk)) throw this.#malformed('an event of the stream is JSON but not an object');
    if ((chunk.error !== undefined && chunk.error !== null) || event === 'error') {
      throw this.#carriedError(chunk);
    }
    if (this.responseId === null && typeof chunk.id === 'string') this.responseId = chunk.id;
    if (typeof chunk.model === 'string') this.responseModel = chunk.model;
    this.#choice(chunk.choices, deltas);
    if (isRecord(chunk.usage)) {
      this.usage = chunk.usage;
      this.#usageFinal = this.finishReason !== null;
    }
    // Not from the first text: learning costs a probe parse, which would delay the first delta.
    if (event === undefined && this.pieces > 1) this.#template?.learn(data, chunk);
    return 'chunk';
  }

  /**
   * The usage that may settle the reply: the latest one, when it came with or after
   * the finish reason (servers with continuous usage stats send a running usage in
   * every chunk; only the last is what the reply cost); else null. Whether the reply
   * was whole is the caller's to know (`[DONE]`, or the body's clean end).
   */
  get finalUsage(): Record<string, unknown> | null {
    return this.#usageFinal ? this.usage : null;
  }

  #choice(choices: unknown, deltas: ChatDelta[]): void {
    if (!Array.isArray(choices) || choices.length === 0) return;
    const choice: unknown = choices[0];
    if (!isRecord(choice)) return;
    const delta = choice.delta;
    if (isRecord(delta)) this.#delta(delta, deltas);
    if (isRecord(choice.logprobs)) this.#mergeLogprobs(choice.logprobs);
    if (typeof choice.finish_reason === 'string') this.finishReason = choice.finish_reason;
  }

  /** The reply message as a plain call reads it (`choices[0].message`, logprobs and finish reason merged in). */
  message(): Record<string, unknown> {
    const message: Record<string, unknown> = { role: 'assistant', content: this.#content.text };
    const reasoningContent = this.#reasoningContent.text;
    if (reasoningContent !== null) message.reasoning_content = reasoningContent;
    const reasoning = this.#reasoning.text;
    if (reasoning !== null) message.reasoning = reasoning;
    if (this.#details !== null) message.reasoning_details = this.#details;
    if (this.#toolCalls.size > 0) {
      const calls = [...this.#toolCalls.entries()].sort(([a], [b]) => a - b).map(([, call]) => call);
      message.tool_calls = calls.map((call) => ({
        id: call.id,
        type: call.type,
        function: { name: call.name, arguments: call.arguments },
      }));
    }
    if (this.#logprobs !== null) message.logprobs = this.#logprobs;
    if (this.finishReason !== null) message.finish_reason = this.finishReason;
    return message;
  }

  /** The content so far, or null when no content field arrived. */
  get content(): string | null {
    return this.#content.text;
  }

  #delta(delta: Record<string, unknown>, deltas: ChatDelta[]): void {
    const reasoningContent = delta.reasoning_content;
    if (typeof reasoningContent === 'string') {
      this.#reasoningContent.add(reasoningContent);
      this.#text('reasoning', reasoningContent, deltas);
    }
    const reasoning = delta.reasoning;
    if (typeof reasoning === 'string') {
      this.#reasoning.add(reasoning);
      // A server that sends both names the same text twice: it is one delta.
      if (typeof reasoningContent !== 'string') this.#text('reasoning', reasoning, deltas);
    }
    if (Array.isArray(delta.reasoning_details)) this.#mergeDetails(delta.reasoning_details);
    const content = delta.content;
    if (typeof content === 'string') {
      this.#content.add(content);
      this.#text('content', content, deltas);
    }
    if (Array.isArray(delta.tool_calls)) {
      for (const fragment of delta.tool_calls) this.#toolCall(fragment, deltas);
    }
  }

  #text(type: 'content' | 'reasoning', text: string, deltas: ChatDelta[]): void {
    if (text === '') return;
    this.pieces += 1;
    this.outputBytes += utf8Bytes(text);
    deltas.push({ type, text });
  }

  #toolCall(fragment: unknown, deltas: ChatDelta[]): void {
    if (!isRecord(fragment)) return;
    const index =
      typeof fragment.index === 'number' && Number.isInteger(fragment.index) && fragment.index >= 0
        ? fragment.index
        : this.#toolCalls.size;
    const fn = isRecord(fragment.function) ? fragment.function : {};
    const id = typeof fragment.id === 'string' ? fragment.id : null;
    const name = typeof fn.name === 'string' ? fn.name : null;
    const argumentsText = typeof fn.arguments === 'string' ? fn.arguments : '';
    let call = this.#toolCalls.get(index);
    if (call === undefined) {
      if (this.#toolCalls.size >= MAX_TOOL_CALLS) {
        throw this.#malformed(`the stream opened more than ${MAX_TOOL_CALLS} tool calls`);
      }
      call = { id: null, type: 'function', name: '', arguments: '' };
      this.#toolCalls.set(index, call);
    }
    if (id !== null) call.id = id;
    if (typeof fragment.type === 'string') call.type = fragment.type;
    if (name !== null) call.name += name;
    call.arguments += argumentsText;
    this.outputBytes += Buffer.byteLength(argumentsText, 'utf8') + (name === null ? 0 : name.length);
    deltas.push({ type: 'tool_call', index, id, name, argumentsText });
  }

  // Entries arrive in pieces sharing an `index`: text pieces are joined, other fields take the latest value.
  #mergeDetails(pieces: readonly unknown[]): void {
    this.#details ??= [];
    this.#detailIndex ??= new Map();
    for (const piece of pieces) {
      if (!isRecord(piece)) continue;
      const key = piece.index;
      const entry = key === undefined ? undefined : this.#detailIndex.get(key);
      if (entry === undefined) {
        const fresh = { ...piece };
        this.#details.push(fresh);
        if (key !== undefined) this.#detailIndex.set(key, fresh);
        continue;
      }
      for (const [field, value] of Object.entries(piece)) {
        if (TEXT_FIELDS.has(field) && typeof value === 'string' && typeof entry[field] === 'string') {
          entry[field] = (entry[field] as string) + value;
        } else if (value !== null && value !== undefined) {
          entry[field] = value;
        }
      }
    }
  }

  #mergeLogprobs(logprobs: Record<string, unknown>): void {
    if (this.#logprobs === null) {
      this.#logprobs = { ...logprobs };
      for (const field of ['content', 'refusal']) {
        const list = logprobs[field];
        if (Array.isArray(list)) this.#logprobs[field] = [...list];
      }
      return;
    }
    for (const field of ['content', 'refusal']) {
      const list = logprobs[field];
      if (!Array.isArray(list)) continue;
      const held = this.#logprobs[field];
      if (Array.isArray(held)) for (const item of list) held.push(item);
      else this.#logprobs[field] = [...list];
    }
  }

  #malformed(detail: string): ChatError {
    return new ChatError({
      kind: 'bad_reply',
      status: 200,
      message: `the stream of ${this.#model}: ${detail}`,
      retryable: false,
    });
  }

  // Typed as a 200 carrying an error: by the HTTP status its code names, else a bad reply.
  #carriedError(chunk: Record<string, unknown>): ChatError {
    const context: CallContext = { method: 'POST', url: '', apiKey: '', timeoutMs: 0, model: this.#model };
    return embeddedFailure(chunk, context, undefined, `an event of the stream of ${this.#model}`);
  }
}

/** The UTF-8 bytes of `text`, as `Buffer.byteLength(text, 'utf8')` counts them; a short text without a native call. */
function utf8Bytes(text: string): number {
  const length = text.length;
  if (length > 32) return Buffer.byteLength(text, 'utf8');
  let bytes = length;
  for (let index = 0; index < length; index += 1) {
    const code = text.charCodeAt(index);
    if (code < 0x80) continue;
    if (code < 0x800) {
      bytes += 1;
      continue;
    }
    // A surrogate pair is 4 bytes (2 counted already); anything else here, a lone surrogate included, 3.
    if (code >= 0xd800 && code <= 0xdbff && index + 1 < length) {
      const next = text.charCodeAt(index + 1);
      if (next >= 0xdc00 && next <= 0xdfff) index += 1;
    }
    bytes += 2;
  }
  return bytes;
}
