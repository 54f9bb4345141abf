/** Tokens allowed per message for the chat template's role markers and separators, which the JSON text does not hold. */
export const TEMPLATE_TOKENS_PER_MESSAGE = 16;
/** Tokens allowed once per request for the template's start, end and tool preamble. */
export const TEMPLATE_TOKENS_PER_REQUEST = 64;

/**
 * An upper bound on the prompt tokens of a request: the UTF-8 bytes of the JSON
 * text of its messages and tools, plus {@link TEMPLATE_TOKENS_PER_MESSAGE} per
 * message and {@link TEMPLATE_TOKENS_PER_REQUEST}.
 *
 * Why it bounds any tokenizer: byte-level BPE and byte-fallback tokenizers give
 * every token of ordinary text at least one byte of that text, so a text never
 * has more tokens than UTF-8 bytes; the text the model reads (contents, names,
 * tool calls and schemas) is no longer than their JSON text, which adds quotes,
 * keys and escapes; what the template adds that is not in the JSON (special
 * tokens per turn) is covered by the per-message and per-request allowances.
 */
export function promptTokenBound(
  messages: readonly unknown[],
  tools: readonly unknown[] | undefined,
): number {
  const text = JSON.stringify(tools === undefined ? [messages] : [messages, tools]);
  return (
    Buffer.byteLength(text, 'utf8') +
    messages.length * TEMPLATE_TOKENS_PER_MESSAGE +
    TEMPLATE_TOKENS_PER_REQUEST
  );
}

/** The bound last worked out for a messages array, and the call and tools it was for. */
interface KeptBound {
  readonly callId: string;
  readonly tools: readonly unknown[] | undefined;
  readonly tokens: number;
}

// By messages array, so nothing is kept alive for it: an entry goes with its array.
const kept = new WeakMap<readonly unknown[], KeptBound>();

/**
 * {@link promptTokenBound} of an attempt, worked out once per call: a later attempt of the same
 * call (its `callId`, the same `messages` and `tools` arrays, which the adapter sends as they
 * are) gets the bound of its first. Another call, even with the same arrays, measures them again
 * (a caller may have changed them since); an attempt without a `callId` is always measured.
 */
export function attemptPromptTokenBound(info: {
  readonly callId?: string;
  readonly messages: readonly unknown[];
  readonly tools: readonly unknown[] | undefined;
}): number {
  const { callId, messages, tools } = info;
  if (callId === undefined) return promptTokenBound(messages, tools);
  const last = kept.get(messages);
  if (last !== undefined && last.callId === callId && last.tools === tools) return last.tokens;
  const tokens = promptTokenBound(messages, tools);
  kept.set(messages, { callId, tools, tokens });
  return tokens;
}
