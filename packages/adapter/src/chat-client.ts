import type { ChatResponse } from './chat-response.js';

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
  /** Cancels the call at once; it then rejects with a `ChatError` of kind `aborted`. */
  signal?: AbortSignal;
  /** Caps this call's answer (`max_tokens`), keeping the adapter's retry policy (unlike `bounded`). */
  maxTokens?: number;
  /** Who in the pipeline makes the call (detector, classifier, judge, ...), for records and reports. */
  role?: string;
}

/** Anything that answers chat calls: the adapter, the scripted client, an override. */
export interface ChatClient {
  complete(request: CompleteRequest): Promise<ChatResponse>;
}
