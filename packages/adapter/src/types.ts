/** One tool call the model asked for, with its arguments parsed from JSON text. */
export interface ToolCall {
  readonly id: string;
  readonly name: string;
  readonly arguments: Record<string, unknown>;
}

/** What a chat call returns, read from the reply message (spec 2.6, 4.2). */
export interface ChatResponse {
  readonly content: string | null;
  readonly toolCalls: readonly ToolCall[];
  /** `message.reasoning_content`, else `message.reasoning`; an empty string reads as null. */
  readonly reasoning: string | null;
  /** The choice's logprobs, merged onto the message (they sit beside it on the wire). */
  readonly logprobs: unknown | null;
  /** Mean of `logprobs.content[].logprob` over its numeric entries; null when there are none. */
  readonly meanLogprob: number | null;
  /** `choices[0].finish_reason` when the reply has one (`'length'` when a cap cut it). */
  readonly finishReason: string | null;
}

/** An OpenAI-shaped chat message: role, content, tool_calls, tool_call_id, reasoning_content, ... */
export type ChatMessage = Record<string, unknown>;

/** An OpenAI-shaped function tool. */
export type ToolSchema = Record<string, unknown>;

/** One chat call, as a caller asks for it (spec 4.1). */
export interface CompleteRequest {
  model: string;
  messages: ChatMessage[];
  tools?: ToolSchema[];
  /** Per-attempt timeout in seconds; default 60. */
  timeoutSeconds?: number;
  /** JSON mode (`response_format: {type: 'json_object'}`); default false. */
  jsonObject?: boolean;
  /** Ask for logprobs with `top_logprobs: 1`; default false. */
  logprobs?: boolean;
  /** Sampling temperature; when not given, the raw call's own default of 0 applies. */
  temperature?: number;
}

/** Anything that answers chat calls: the adapter, the scripted client, an override. */
export interface ChatClient {
  complete(request: CompleteRequest): Promise<ChatResponse>;
}

/** The request the adapter hands to its transport (spec 4.2). */
export interface TransportRequest {
  model: string;
  messages: ChatMessage[];
  /** Undefined when the caller's list is empty: tools are then omitted from the wire. */
  tools: ToolSchema[] | undefined;
  timeoutSeconds: number;
  /** thinking / temperature / response_format / logprobs / top_logprobs / max_tokens */
  extraBody: Record<string, unknown>;
}

/** What the adapter wraps: an OpenAI-shaped transport. */
export interface ChatTransport {
  /** The whole reply payload; used when present, so usage and logprobs can be read. */
  completeChatRaw?(request: TransportRequest): Promise<unknown>;
  /** Just the reply message (stubs); no usage is recorded on this path. */
  completeChat(request: TransportRequest): Promise<Record<string, unknown>>;
  /** A copy of this transport that makes that many attempts per call. */
  withMaxAttempts?(attempts: number): ChatTransport;
  /** The model ids the provider's `GET /models` lists (`OpenAITransport` has it). */
  listModels?(options?: { timeoutSeconds?: number }): Promise<string[]>;
}

/** Turns one usage entry into USD; `ChatEndpoint` satisfies it. */
export interface CostModel {
  cost(usage: unknown): number | null;
}
