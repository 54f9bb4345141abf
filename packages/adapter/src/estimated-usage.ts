import type { TransportRequest } from './chat-transport.js';
import { isCount } from './settlement-rule.js';

/** UTF-8 bytes a token takes, on average, in the text a tokenizer sees: what an estimate divides by. */
const BYTES_PER_TOKEN = 4;
/** Tokens allowed per message, and once per request, for the chat template the JSON text does not hold. */
const TEMPLATE_TOKENS_PER_MESSAGE = 16;
const TEMPLATE_TOKENS_PER_REQUEST = 64;

/** What arrived of a reply that no trusted usage settles. */
export interface ReceivedOutput {
  /** UTF-8 bytes of the text received (content, reasoning, tool calls' names and arguments). */
  readonly bytes: number;
  /** Non-empty text deltas received (a stream's chunks carry at least one token each); 0 for a plain reply. */
  readonly pieces: number;
  /** `prompt_tokens` of a usage that arrived but cannot settle the call (an early or odd one), else null. */
  readonly promptTokens: number | null;
}

/**
 * The usage to price a call that no trusted usage settles (a stream cut or failed
 * after output, a reply whose usage is missing or odd): about what the provider
 * billed for what is known, not its worst case. Prompt tokens: those an early usage
 * reported (when at least 1; at most the prompt's bytes plus template allowances), else the UTF-8 bytes of the messages' and tools' JSON text at
 * {@link BYTES_PER_TOKEN} bytes a token; completion tokens: the text deltas received
 * or their bytes at {@link BYTES_PER_TOKEN} a token, whichever is more, at most the
 * request's `max_tokens`. A record priced from it says `priceSource: 'estimate'` and
 * `settlement: 'estimate'`; a budget keeps such an attempt at its worst case.
 */
export function estimatedUsage(
  request: Pick<TransportRequest, 'messages' | 'tools' | 'extraBody'>,
  received: ReceivedOutput,
): Record<string, number> {
  const { messages, tools } = request;
  const cap = request.extraBody?.max_tokens;
  const output = Math.max(received.pieces, Math.ceil(received.bytes / BYTES_PER_TOKEN));
  const completion =
    typeof cap === 'number' && Number.isSafeInteger(cap) && cap > 0 ? Math.min(output, cap) : output;
  const promptBytes = Buffer.byteLength(
    JSON.stringify(tools === undefined ? messages : [messages, tools]),
    'utf8',
  );
  // A hint of 0 is no hint (an estimate is never free), and none passes the prompt's bound: no
  // tokenizer gives a text more tokens than bytes, plus the chat template's allowances.
  const bound = promptBytes + messages.length * TEMPLATE_TOKENS_PER_MESSAGE + TEMPLATE_TOKENS_PER_REQUEST;
  const hint = received.promptTokens;
  const prompt =
    isCount(hint) && hint >= 1 ? Math.min(Math.floor(hint), bound) : Math.ceil(promptBytes / BYTES_PER_TOKEN);
  return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
}

/** What a plain reply's message carried, for {@link estimatedUsage}: its text's bytes. */
export function receivedOf(message: unknown, usage: unknown): ReceivedOutput {
  let bytes = 0;
  const add = (text: unknown): void => {
    if (typeof text === 'string') bytes += Buffer.byteLength(text, 'utf8');
  };
  if (typeof message === 'object' && message !== null) {
    const fields = message as Record<string, unknown>;
    add(fields.content);
    add(fields.reasoning_content ?? fields.reasoning);
    if (Array.isArray(fields.tool_calls)) {
      for (const call of fields.tool_calls as { function?: { name?: unknown; arguments?: unknown } }[]) {
        add(call?.function?.name);
        add(call?.function?.arguments);
      }
    }
  }
  const prompt = (usage as { prompt_tokens?: unknown } | null | undefined)?.prompt_tokens;
  return { bytes, pieces: 0, promptTokens: isCount(prompt) ? prompt : null };
}
