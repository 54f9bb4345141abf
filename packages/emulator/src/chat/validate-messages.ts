import { invalidField } from '../http/api-error.js';
import type { RouteResult } from '../http/route-result.js';

const ROLES = ['system', 'developer', 'user', 'assistant', 'tool'];

/**
 * Checks what a reasoning model needs replayed on an assistant turn with tool
 * calls (the message at `index`); returns the 400 to answer, or null.
 */
export type ReplayCheck = (message: Readonly<Record<string, unknown>>, index: number) => RouteResult | null;

/**
 * Checks the `messages` field: a non-empty array of messages with known roles,
 * text content, tool calls in OpenAI shape (arguments as JSON text), tool
 * results answering an earlier tool call, and — while reasoning — what
 * `replayCheck` asks of every assistant turn with tool calls. Returns the
 * error to answer, or null.
 */
export function validateMessages(messages: unknown, replayCheck: ReplayCheck | null): RouteResult | null {
  if (!Array.isArray(messages) || messages.length === 0) {
    return invalidField('messages', "Field 'messages' must be a non-empty array of message objects");
  }
  const callIds = new Set<string>();
  for (const [index, message] of messages.entries()) {
    const where = `messages[${index}]`;
    if (message === null || typeof message !== 'object' || Array.isArray(message)) {
      return invalidField('messages', `${where} must be a message object`);
    }
    const record = message as Record<string, unknown>;
    if (typeof record.role !== 'string' || !ROLES.includes(record.role)) {
      return invalidField('messages', `${where}.role must be one of ${ROLES.join(', ')}`);
    }
    const content = record.content;
    const optionalContent = record.role === 'assistant';
    const contentOk =
      typeof content === 'string' || Array.isArray(content) || (optionalContent && content == null);
    if (!contentOk) {
      const expected = optionalContent
        ? 'a string, an array of content parts or null'
        : 'a string or an array';
      return invalidField('messages', `${where}.content must be ${expected}`);
    }
    if (record.role === 'assistant' && record.tool_calls !== undefined && record.tool_calls !== null) {
      const error = checkToolCalls(record, where, index, replayCheck, callIds);
      if (error !== null) return error;
    }
    if (record.role === 'tool') {
      if (typeof record.tool_call_id !== 'string' || !callIds.has(record.tool_call_id)) {
        return invalidField(
          'messages',
          `${where}: a 'tool' message must answer a tool call of an earlier assistant message ` +
            `(tool_call_id ${JSON.stringify(record.tool_call_id ?? null)} was not found)`,
        );
      }
    }
  }
  return null;
}

function checkToolCalls(
  record: Record<string, unknown>,
  where: string,
  index: number,
  replayCheck: ReplayCheck | null,
  callIds: Set<string>,
): RouteResult | null {
  const calls = record.tool_calls;
  if (!Array.isArray(calls)) return invalidField('messages', `${where}.tool_calls must be an array`);
  for (const [callIndex, call] of calls.entries()) {
    const fn = (call as { function?: { name?: unknown; arguments?: unknown } } | null)?.function;
    const id = (call as { id?: unknown } | null)?.id;
    if (typeof id !== 'string' || typeof fn?.name !== 'string' || typeof fn.arguments !== 'string') {
      return invalidField(
        'messages',
        `${where}.tool_calls[${callIndex}] must be {id, type: 'function', function: {name, arguments}} ` +
          'with arguments as JSON text',
      );
    }
    callIds.add(id);
  }
  return replayCheck !== null && calls.length > 0 ? replayCheck(record, index) : null;
}

/** The primary platform's rule while thinking: a tool-call turn must carry its `reasoning_content`. */
export const requireReasoningContent: ReplayCheck = (message, index) => {
  const reasoning = message.reasoning_content;
  if (typeof reasoning === 'string' && reasoning !== '') return null;
  return invalidField(
    'messages',
    `Missing \`reasoning_content\` field in the assistant message at message index ${index}. ` +
      'The reasoning_content of an assistant turn with tool calls must be passed back to the API ' +
      'in thinking mode.',
  );
};
