import type { ChatResponse } from './chat-response.js';

/**
 * One piece of a streamed answer, in the order it arrived: answer text,
 * reasoning text (the primary's `reasoning_content`, the gateway's `reasoning`),
 * or a fragment of a tool call. Tool-call fragments share their call's `index`;
 * `id` and `name` come with the first fragment (null on the others) and the
 * `argumentsText` pieces, joined, are the call's JSON arguments, assembled in
 * {@link ChatStream.response}.
 */
export type ChatDelta =
  | { readonly type: 'content'; readonly text: string }
  | { readonly type: 'reasoning'; readonly text: string }
  | {
      readonly type: 'tool_call';
      readonly index: number;
      readonly id: string | null;
      readonly name: string | null;
      readonly argumentsText: string;
    };

/**
 * A streamed chat call: iterate it (once) for its deltas as they arrive, and
 * await {@link ChatStream.response} for what `complete()` would have returned
 * for the same reply. Awaiting `response` alone reads the stream to its end.
 */
export interface ChatStream extends AsyncIterable<ChatDelta> {
  /**
   * Settles when the stream ends: the whole response (content, reasoning,
   * assembled tool calls, logprobs, finish reason, `calls`, `costUsd`), or a
   * `ChatError` that carries what arrived before the failure.
   */
  readonly response: Promise<ChatResponse>;
  /** Closes the connection at once; `response` rejects with kind `aborted`. Idempotent. */
  abort(reason?: unknown): void;
}
