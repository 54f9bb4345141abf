import type { ChatLogprobs, ChatResponse, ToolCall } from './chat-response.js';
import { isRecord, readArray, readField, readString } from './read-field.js';
import type { ReasoningDetail } from './reasoning-detail.js';

const emptyResponse: ChatResponse = Object.freeze({
  content: null,
  toolCalls: Object.freeze([]),
  reasoning: null,
  logprobs: null,
  meanLogprob: null,
  finishReason: null,
  reasoningDetails: null,
  calls: Object.freeze([]),
  costUsd: null,
  costNanoUsd: null,
});

/**
 * Reads a chat response from an OpenAI-shaped reply message. Never throws,
 * whatever the input: anything that is not a well-formed field reads as absent.
 */
export function chatResponseFromMessage(message: unknown): ChatResponse {
  try {
    if (!isRecord(message)) return emptyResponse;
    const logprobs = (readField(message, 'logprobs') ?? null) as ChatLogprobs | null;
    const toolCalls = readToolCalls(message);
    const content = readString(message, 'content') ?? null;
    return Object.freeze({
      // A tool-call turn without text is `null` whether the provider sent `''` or `null`, plain
      // or streamed in `content: ""` deltas: a stream then equals the plain reply (docs/streaming.md).
      content: content === '' && toolCalls.length > 0 ? null : content,
      toolCalls: Object.freeze(toolCalls),
      reasoning: readString(message, 'reasoning_content') || readString(message, 'reasoning') || null,
      logprobs,
      meanLogprob: meanLogprob(logprobs),
      finishReason: readString(message, 'finish_reason') ?? null,
      reasoningDetails: reasoningDetails(message),
      calls: Object.freeze([]),
      costUsd: null,
      costNanoUsd: null,
    });
  } catch {
    return emptyResponse;
  }
}

function readToolCalls(message: Record<string, unknown>): ToolCall[] {
  const toolCalls: ToolCall[] = [];
  for (const entry of readArray(message, 'tool_calls')) {
    const type = readField(entry, 'type');
    if (type !== undefined && type !== 'function') continue;
    const fn = readField(entry, 'function');
    const name = readString(fn, 'name');
    if (!name) continue;
    toolCalls.push(
      Object.freeze({
        id: readString(entry, 'id') ?? '',
        name,
        arguments: readArguments(readField(fn, 'arguments')),
      }),
    );
  }
  return toolCalls;
}

/** Arguments arrive as JSON text; some servers send the object itself. Anything else reads as `{}`. */
function readArguments(value: unknown): Record<string, unknown> {
  try {
    const parsed: unknown = typeof value === 'string' ? JSON.parse(value) : value;
    return isRecord(parsed) ? Object.freeze({ ...parsed }) : Object.freeze({});
  } catch {
    return Object.freeze({});
  }
}

// The platform documents -9999 as "no probability"; a logprob above 0 is invalid.
const SENTINEL_LOGPROB = -9999;

/** Mean of the valid logprobs (finite, above the sentinel, at most 0); null when there are none. */
function meanLogprob(logprobs: unknown): number | null {
  let sum = 0;
  let count = 0;
  for (const token of readArray(logprobs, 'content')) {
    const logprob = readField(token, 'logprob');
    if (typeof logprob === 'number' && logprob > SENTINEL_LOGPROB && logprob <= 0) {
      sum += logprob;
      count += 1;
    }
  }
  // Each value lies in (-9999, 0]: the sum stays finite and the mean within the values.
  return count === 0 ? null : sum / count;
}

/**
 * The gateway's `reasoning_details` array as received (replayed unchanged), or
 * null when absent, empty, or holding anything but objects (not reasoning details).
 */
function reasoningDetails(message: Record<string, unknown>): readonly ReasoningDetail[] | null {
  const details = readArray(message, 'reasoning_details');
  if (details.length === 0 || !details.every(isRecord)) return null;
  return Object.freeze(details as ReasoningDetail[]);
}
