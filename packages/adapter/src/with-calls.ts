import { usdOfNano } from '@switchboard/prices';
import type { CallRecord } from './call-record.js';
import type { ChatResponse } from './chat-response.js';

/**
 * The response with its raw calls' records and their summed cost, exact in
 * nano-dollars (both null when none was priced).
 */
export function withCalls(response: ChatResponse, calls: readonly CallRecord[]): ChatResponse {
  let costNanoUsd: number | null = null;
  for (const call of calls) {
    if (call.costNanoUsd !== null) costNanoUsd = (costNanoUsd ?? 0) + call.costNanoUsd;
  }
  const costUsd = costNanoUsd === null ? null : usdOfNano(costNanoUsd);
  return Object.freeze({ ...response, calls: Object.freeze([...calls]), costUsd, costNanoUsd });
}
