import type {
  ChatCompletionFunctionTool,
  ChatCompletionMessageParam,
} from 'openai/resources/chat/completions';
import type { ChatResponse } from './chat-response.js';
import type { ChatStream } from './chat-stream.js';
import type { ReasoningDetail } from './reasoning-detail.js';

/**
 * What providers add to an assistant turn so it can be replayed: the primary's
 * `reasoning_content`, the gateway's `reasoning` text and `reasoning_details`.
 */
export interface ReasoningFields {
  reasoning_content?: string | null;
  reasoning?: string | null;
  /** The gateway's array as received, replayed unchanged (some entries are signed). */
  reasoning_details?: readonly ReasoningDetail[] | null;
}

/**
 * An OpenAI-shaped chat message: the `openai` SDK's own message type (role,
 * content, tool_calls, tool_call_id, ...), widened with the reasoning fields,
 * so a typo such as `{ rol: 'user' }` fails to compile.
 */
export type ChatMessage = ChatCompletionMessageParam & ReasoningFields;

/** An OpenAI-shaped function tool: the `openai` SDK's own function tool type. */
export type ToolSchema = ChatCompletionFunctionTool;

/** One chat call, as a caller asks for it. */
export interface CompleteRequest {
  model: string;
  /** The conversation so far; a readonly array is fine, it is never changed. */
  messages: readonly ChatMessage[];
  tools?: readonly ToolSchema[];
  /**
   * Per-attempt timeout in seconds; default 60. Each attempt (the first and up to
   * two retries by default) gets this long, so a call may take about three times
   * as long plus the waits between attempts: set `deadlineSeconds` to bound the whole call.
   */
  timeoutSeconds?: number;
  /**
   * A total deadline for the call, in seconds: it covers every attempt, every wait
   * between attempts and the empty-JSON retry. When it passes, the call ends at
   * once with a `ChatError` of kind `timeout`. Default: none (only `timeoutSeconds`
   * per attempt applies).
   */
  deadlineSeconds?: number;
  /** JSON mode (`response_format: {type: 'json_object'}`); default false. */
  jsonObject?: boolean;
  /** Ask for logprobs with `top_logprobs: 1`; default false. */
  logprobs?: boolean;
  /** Sampling temperature; when not given it is not sent by the adapter and the raw call's own `temperature: 0` applies. */
  temperature?: number;
  /** Cancels the call at once; it then rejects with a `ChatError` of kind `aborted`. */
  signal?: AbortSignal;
  /**
   * Caps this call's answer (`max_tokens`, a positive integer), keeping the
   * adapter's retry policy and empty-JSON retry (unlike `bounded`). In a bounded
   * copy the smaller of the two caps is sent.
   */
  maxTokens?: number;
  /** Who in the pipeline makes the call (detector, classifier, judge, ...), for records and reports. */
  role?: string;
  /**
   * The customer (or other party) the call is made for: it wins over a
   * `ChatAdapter.forTenant` view's, is on the call's record and journal line (never a key), and a
   * budget with `tenants` charges it to the tenant's scope. A non-empty string of at most 256 characters,
   * without control characters, `{`, `}` or `/`.
   */
  tenant?: string;
}

/** The same request by its other name: what `complete` and `stream` take ({@link CompleteRequest}). */
export type ChatRequest = CompleteRequest;

/** Anything that answers chat calls: the adapter, the scripted client, an override. */
export interface ChatClient {
  complete(request: CompleteRequest): Promise<ChatResponse>;
  /** The same call as a stream of deltas, when the client can stream (the adapter and the scripted client can). */
  stream?(request: CompleteRequest): ChatStream;
}
