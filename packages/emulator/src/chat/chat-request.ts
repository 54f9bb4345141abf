/** A function tool the request offers. */
export interface ToolDefinition {
  readonly name: string;
  /** The tool's JSON schema for its arguments, as sent (may be undefined). */
  readonly parameters: unknown;
}

/** How the request lets the model pick tools: `auto`, `none`, `required`, or one named function. */
export type ToolChoice = 'auto' | 'none' | 'required' | { readonly name: string };

/** A validated `POST /chat/completions` body, with defaults applied. */
export interface ChatRequest {
  /** The accepted model id (an alias already mapped). */
  readonly model: string;
  readonly messages: readonly Readonly<Record<string, unknown>>[];
  /** The `tools` list as sent (undefined when absent). */
  readonly rawTools: readonly unknown[] | undefined;
  readonly tools: readonly ToolDefinition[];
  readonly toolChoice: ToolChoice;
  /** True unless the body says `thinking: {type: 'disabled'}`. */
  readonly thinking: boolean;
  /** The sampling temperature; 1 when absent. Ignored while thinking. */
  readonly temperature: number;
  /** `response_format: {type: 'json_object'}`. */
  readonly jsonMode: boolean;
  readonly logprobs: boolean;
  readonly topLogprobs: number;
  /** `max_tokens` (or `max_completion_tokens`), null when absent. */
  readonly maxTokens: number | null;
  /** `stream: true`: the reply is streamed as Server-Sent Events. */
  readonly stream: boolean;
  /** `stream_options.include_usage`: the stream ends with a usage chunk. */
  readonly includeUsage: boolean;
}
