import type { CallRecord } from './call-record.js';
import type { ChatResponse } from './chat-response.js';

/** The response with its raw calls' records and their summed cost (null when none was priced). */
export function withCalls(response: ChatResponse, calls: readonly CallRecord[]): ChatResponse {
  let costUsd: number | null = null;
  for (const call of calls) if (call.costUsd !== null) costUsd = (costUsd ?? 0) + call.costUsd;
  return Object.freeze({ ...response, calls: Object.freeze([...calls]), costUsd });
}
