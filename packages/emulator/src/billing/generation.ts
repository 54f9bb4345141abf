/** What the emulator generated for one chat request: the figures its reply's usage reports. */
export interface Generation {
  /** The model that answered (an alias mapped). */
  readonly model: string;
  readonly promptTokens: number;
  /** Prompt tokens served from the prefix cache. */
  readonly cacheHitTokens: number;
  /** Completion tokens of the whole reply: content, reasoning and tool calls. */
  readonly completionTokens: number;
}

/** The generation a completion body reports (its `model` and `usage`, both flavours' shapes). */
export function generationOf(completion: Record<string, unknown>): Generation {
  const usage = completion.usage as {
    prompt_tokens: number;
    completion_tokens: number;
    prompt_tokens_details: { cached_tokens: number };
  };
  return {
    model: String(completion.model),
    promptTokens: usage.prompt_tokens,
    cacheHitTokens: usage.prompt_tokens_details.cached_tokens,
    completionTokens: usage.completion_tokens,
  };
}
