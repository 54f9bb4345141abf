/**
 * A new `ChatResponse` with nothing in it, every field at its empty value: what a
 * reply without a usable message is read as, and what a scripted turn starts from.
 * (Spelled out here rather than typed against the adapter, which depends on this
 * package for its own tests; it is checked against `ChatResponse` where it is used.)
 */
export function emptyChatResponse() {
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
