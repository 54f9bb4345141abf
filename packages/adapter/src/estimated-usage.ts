import type { TransportRequest } from './chat-transport.js';

/** Tokens allowed per message for the chat template's role markers, which the JSON text does not hold. */
const TEMPLATE_TOKENS_PER_MESSAGE = 16;
/** Tokens allowed once per request for the template's start, end and tool preamble. */
const TEMPLATE_TOKENS_PER_REQUEST = 64;

/**
 * The usage to price a stream that ended without one (cut, aborted, failed):
 * an upper bound on what the provider can bill for what is known. Prompt
 * tokens: the UTF-8 bytes of the messages' and tools' JSON text plus template
 * allowances (no tokenizer gives a text more tokens than bytes); completion
 * tokens: the UTF-8 bytes of the text deltas received, at most the
 * request's `max_tokens` when it sent one (the provider bills no more), so the
 * estimate never exceeds the worst case a budget reserved for the call. No
 * cache hits are counted. A record priced from it says `priceSource: 'estimate'`.
 */
export function estimatedUsage(
  request: Pick<TransportRequest, 'messages' | 'tools' | 'extraBody'>,
  received: number,
): Record<string, number> {
  const { messages, tools } = request;
  const cap = request.extraBody?.max_tokens;
  const outputBytes =
    typeof cap === 'number' && Number.isSafeInteger(cap) && cap > 0 ? Math.min(received, cap) : received;
  const text = JSON.stringify(tools === undefined ? [messages] : [messages, tools]);
  const prompt =
    Buffer.byteLength(text, 'utf8') +
    messages.length * TEMPLATE_TOKENS_PER_MESSAGE +
    TEMPLATE_TOKENS_PER_REQUEST;
  return {
    prompt_tokens: prompt,
    completion_tokens: outputBytes,
    total_tokens: prompt + outputBytes,
  };
}
