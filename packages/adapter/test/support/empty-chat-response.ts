import type { ChatResponse } from '../../src/index.js';

/** A new response with nothing in it: what a reply without a usable message is read as. */
export function emptyChatResponse(): ChatResponse {
  return {
    content: null,
    toolCalls: [],
    reasoning: null,
    logprobs: null,
    meanLogprob: null,
    finishReason: null,
    reasoningDetails: null,
    calls: [],
    costUsd: null,
    costNanoUsd: null,
  };
}
