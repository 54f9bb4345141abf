import { messageText } from '../chat/message-text.js';
import { tokenize } from './tokenize.js';

/** The parts of a chat request that make up its prompt. */
export interface PromptSource {
  readonly messages: readonly unknown[];
  readonly tools?: readonly unknown[] | undefined;
}

/**
 * The canonical text of one message, as the tokenizer sees it: the role, then
 * the content, then (when present) the reasoning, each tool call's name and
 * arguments, and the tool call id, one per line.
 */
export function canonicalMessage(message: unknown): string {
  if (message === null || typeof message !== 'object') return '';
  const record = message as Record<string, unknown>;
  const lines = [String(record.role ?? ''), messageText(record.content)];
  // The gateway replays reasoning as `reasoning`; the primary platform as `reasoning_content`.
  const reasoning = record.reasoning_content ?? record.reasoning;
  if (typeof reasoning === 'string' && reasoning !== '') lines.push(reasoning);
  if (Array.isArray(record.tool_calls)) {
    for (const call of record.tool_calls) {
      const fn = (call as { function?: { name?: unknown; arguments?: unknown } } | null)?.function;
      lines.push(`${String(fn?.name ?? '')} ${String(fn?.arguments ?? '')}`);
    }
  }
  if (typeof record.tool_call_id === 'string') lines.push(record.tool_call_id);
  return lines.join('\n');
}

/**
 * The prompt tokens of a request, in order: the tools (as JSON text, when any
 * are offered) come first, then each message's {@link canonicalMessage}.
 * `prompt_tokens` is the length of this list, and the prefix cache compares
 * these lists.
 */
export function promptTokens(source: PromptSource): string[] {
  const tokens: string[] = [];
  // One token at a time: spreading a message's tokens into push() passes each as an argument,
  // and a long prompt of short words (0.5 MiB of `a `) overflows the stack.
  const add = (text: string) => {
    for (const token of tokenize(text)) tokens.push(token);
  };
  if (source.tools !== undefined && source.tools.length > 0) add(`tools\n${JSON.stringify(source.tools)}`);
  for (const message of source.messages) add(canonicalMessage(message));
  return tokens;
}
