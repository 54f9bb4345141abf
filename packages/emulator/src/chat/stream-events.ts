import type { EmulatorFlavor } from '../gateway/emulator-flavor.js';
import { tokenSpans } from '../tokens/tokenize.js';

/**
 * One piece of a streamed reply: a comment line, a data event (an object,
 * optionally under an SSE event name, `[DONE]`, or raw text), or bytes written
 * as they are (not an event).
 */
export type StreamEvent =
  | { readonly comment: string }
  | { readonly data: Record<string, unknown> | '[DONE]'; readonly event?: string }
  | { readonly raw: string }
  | { readonly bytes: string };

/** Whether `event` is a data event (the ones fault positions count): not a comment, not raw bytes. */
export function isDataEvent(event: StreamEvent): boolean {
  return !('comment' in event) && !('bytes' in event);
}

/** How a completion is streamed. */
export interface StreamShape {
  readonly flavor: EmulatorFlavor;
  /** `stream_options.include_usage`: a last chunk with `choices: []` and the usage. */
  readonly includeUsage: boolean;
  /** `: keep-alive` comments before the first data event. */
  readonly keepAlives: number;
}

/** Pieces of a tool call's `arguments` text per chunk, so arguments always arrive split. */
const ARGUMENT_PIECE = 8;

/**
 * The events that stream `completion` (a whole `chat.completion` reply) as the
 * platform does, so that the chunks, assembled, give back exactly its message:
 * keep-alive comments first; a role chunk (`content: ''`, and `logprobs:
 * {content: []}` when logprobs were asked); the reasoning one token per chunk
 * (the primary's `reasoning_content`, or the gateway's `reasoning` with its
 * `reasoning_details` text in pieces, the signature on the last, the summary
 * whole after); the content one token per chunk (with its logprobs); each tool
 * call's id and name, then its arguments in pieces of 8 characters; a chunk
 * with the finish reason; the usage chunk (`choices: []`, the gateway's with
 * `cost`) when asked for; then `[DONE]`.
 */
export function streamEvents(completion: Record<string, unknown>, shape: StreamShape): StreamEvent[] {
  const events: StreamEvent[] = [];
  for (let index = 0; index < shape.keepAlives; index += 1) events.push({ comment: ' keep-alive' });
  const base: Record<string, unknown> = {
    id: completion.id,
    ...(completion.provider === undefined ? {} : { provider: completion.provider }),
    object: 'chat.completion.chunk',
    created: completion.created,
    model: completion.model,
    system_fingerprint: completion.system_fingerprint,
  };
  const chunk = (delta: Record<string, unknown>, extra: Record<string, unknown> = {}): StreamEvent => ({
    data: { ...base, choices: [{ index: 0, delta, logprobs: null, finish_reason: null, ...extra }] },
  });
  const choices = completion.choices as Record<string, unknown>[];
  const choice = choices[0];
  if (choice !== undefined) {
    const message = choice.message as Record<string, unknown>;
    const logprobs = choice.logprobs as { content: unknown[] } | null;
    events.push(chunk({ role: 'assistant', content: '' }, logprobs ? { logprobs: { content: [] } } : {}));
    pushReasoning(events, message, chunk);
    const content = typeof message.content === 'string' ? message.content : '';
    pieces(content).forEach((piece, index) => {
      const entry = logprobs?.content[index];
      events.push(chunk({ content: piece }, entry === undefined ? {} : { logprobs: { content: [entry] } }));
    });
    const toolCalls = (message.tool_calls ?? []) as {
      id: string;
      type: string;
      function: { name: string; arguments: string };
    }[];
    toolCalls.forEach((call, index) => {
      events.push(
        chunk({
          tool_calls: [
            { index, id: call.id, type: call.type, function: { name: call.function.name, arguments: '' } },
          ],
        }),
      );
      const text = call.function.arguments;
      for (let start = 0; start < text.length; start += ARGUMENT_PIECE) {
        events.push(
          chunk({
            tool_calls: [{ index, function: { arguments: text.slice(start, start + ARGUMENT_PIECE) } }],
          }),
        );
      }
    });
    events.push(chunk({}, { finish_reason: choice.finish_reason }));
  }
  if (shape.includeUsage) events.push({ data: { ...base, choices: [], usage: completion.usage } });
  events.push({ data: '[DONE]' });
  return events;
}

function pushReasoning(
  events: StreamEvent[],
  message: Record<string, unknown>,
  chunk: (delta: Record<string, unknown>) => StreamEvent,
): void {
  if (typeof message.reasoning_content === 'string') {
    for (const piece of pieces(message.reasoning_content)) events.push(chunk({ reasoning_content: piece }));
    return;
  }
  if (typeof message.reasoning !== 'string') return;
  const details = (message.reasoning_details ?? []) as Record<string, unknown>[];
  // The entry holding the reasoning text streams with it, in the same pieces; the signature comes last.
  const textEntry = details.find((entry) => entry.text === message.reasoning);
  const reasoningPieces = pieces(message.reasoning);
  reasoningPieces.forEach((piece, index) => {
    const delta: Record<string, unknown> = { reasoning: piece };
    if (textEntry !== undefined) {
      const { type, format, index: entryIndex, text: _text, ...rest } = textEntry;
      const last = index === reasoningPieces.length - 1;
      delta.reasoning_details = [{ type, text: piece, format, index: entryIndex, ...(last ? rest : {}) }];
    }
    events.push(chunk(delta));
  });
  for (const entry of details) {
    if (entry !== textEntry) events.push(chunk({ reasoning_details: [entry] }));
  }
}

/** The text cut after each token (the emulator's tokenizer), whitespace kept: the pieces join back into it. */
export function pieces(text: string): string[] {
  const result: string[] = [];
  let start = 0;
  for (const span of tokenSpans(text)) {
    result.push(text.slice(start, span.end));
    start = span.end;
  }
  if (start < text.length) {
    if (result.length === 0) result.push(text.slice(start));
    else result[result.length - 1] += text.slice(start);
  }
  return result;
}

/** The SSE text of one event. */
export function frameEvent(event: StreamEvent): string {
  if ('comment' in event) return `:${event.comment}\n\n`;
  if ('bytes' in event) return event.bytes;
  if ('raw' in event) return `data: ${event.raw}\n\n`;
  const name = event.event === undefined ? '' : `event: ${event.event}\n`;
  return `${name}data: ${event.data === '[DONE]' ? '[DONE]' : JSON.stringify(event.data)}\n\n`;
}
