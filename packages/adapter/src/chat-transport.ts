import type { ChatMessage, ToolSchema } from './chat-client.js';

/** The request the adapter hands to its transport. */
export interface TransportRequest {
  model: string;
  messages: ChatMessage[];
  /** Undefined when the caller's list is empty: tools are then omitted from the wire. */
  tools: ToolSchema[] | undefined;
  timeoutSeconds: number;
  /** thinking / temperature / response_format / logprobs / top_logprobs / max_tokens */
  extraBody: Record<string, unknown>;
  /** Cancels the call at once, also between attempts; the transport then rejects with kind `aborted`. */
  signal?: AbortSignal;
  /**
   * Called by the transport before each attempt goes on the wire (1-based). It may
   * wait (a concurrency slot) or throw (a budget refusal, a `ChatError`): the call
   * then ends with that error and nothing is sent.
   */
  beforeAttempt?: (attempt: number) => void | Promise<void>;
  /**
   * Called by the transport when each attempt that `beforeAttempt` let through
   * ends: `failure` is null when a reply was read and will be returned, else the
   * error that ended the attempt (retried or not).
   */
  afterAttempt?: (attempt: number, failure: unknown | null) => void;
}

/** What the adapter wraps: an OpenAI-shaped transport. */
export interface ChatTransport {
  /**
   * True when the transport calls `beforeAttempt` / `afterAttempt` of each request
   * itself (`OpenAITransport` does, around each of its attempts); otherwise the
   * adapter calls them around the single transport call.
   */
  readonly reportsAttempts?: boolean;
  /** The whole reply payload; used when present, so usage and logprobs can be read. */
  completeChatRaw?(request: TransportRequest): Promise<unknown>;
  /** Just the reply message (stubs); no usage is recorded on this path. */
  completeChat(request: TransportRequest): Promise<Record<string, unknown>>;
  /** A copy of this transport that makes that many attempts per call. */
  withMaxAttempts?(attempts: number): ChatTransport;
  /** The model ids the provider's `GET /models` lists (`OpenAITransport` has it). */
  listModels?(options?: { timeoutSeconds?: number }): Promise<string[]>;
}
