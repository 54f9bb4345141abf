import type { ChatCompletionAssistantMessageParam } from 'openai/resources/chat/completions';
import type { ChatMessage, ReasoningFields } from './chat-client.js';
import type { ChatResponse } from './chat-response.js';

/**
 * The assistant turn to append before tool results: content, `tool_calls` in
 * OpenAI shape (arguments as JSON text) and `reasoning_content` when the
 * response had reasoning, so the reasoning is replayed across tool turns.
 * A gateway reply's `reasoning_details` are replayed unchanged (same array
 * items, some signed), with its reasoning text also as `reasoning`, the field
 * the gateway reads; a reply without details gets neither.
 */
export function toAssistantMessage(response: ChatResponse): ChatMessage {
  const toolCalls = response.toolCalls ?? [];
  const reasoning = response.reasoning ?? null;
  const details = response.reasoningDetails ?? null;
  const message: ChatCompletionAssistantMessageParam & ReasoningFields = {
    role: 'assistant',
    content: response.content ?? null,
  };
  if (toolCalls.length > 0) {
    message.tool_calls = toolCalls.map((call) => ({
      id: call.id,
      type: 'function',
      function: { name: call.name, arguments: JSON.stringify(call.arguments ?? {}) },
    }));
  }
  if (reasoning !== null) message.reasoning_content = reasoning;
  if (details !== null && details.length > 0) {
    if (reasoning !== null) message.reasoning = reasoning;
    message.reasoning_details = details;
  }
  return message;
}
