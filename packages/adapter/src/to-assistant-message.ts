import type { ChatMessage } from './chat-client.js';
import type { ChatResponse } from './chat-response.js';

/**
 * The assistant turn to append before tool results: content, `tool_calls` in
 * OpenAI shape (arguments as JSON text) and `reasoning_content` when the
 * response had reasoning, so the reasoning is replayed across tool turns.
 */
export function toAssistantMessage(response: ChatResponse): ChatMessage {
  const toolCalls = response.toolCalls ?? [];
  const reasoning = response.reasoning ?? null;
  return {
    role: 'assistant',
    content: response.content ?? null,
    ...(toolCalls.length > 0
      ? {
          tool_calls: toolCalls.map((call) => ({
            id: call.id,
            type: 'function',
            function: { name: call.name, arguments: JSON.stringify(call.arguments ?? {}) },
          })),
        }
      : {}),
    ...(reasoning !== null ? { reasoning_content: reasoning } : {}),
  };
}
