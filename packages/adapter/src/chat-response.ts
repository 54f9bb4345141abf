import type { ChatCompletion } from 'openai/resources/chat/completions';
import type { CallRecord } from './call-record.js';
import type { FinishReason } from './finish-reason.js';
import type { ReasoningDetail } from './reasoning-detail.js';

/**
 * The choice's logprobs in the `openai` SDK's shape (`content[].logprob`, `token`,
 * `top_logprobs`, ...), as the provider sent them: not validated, so read each
 * field defensively.
 */
export type ChatLogprobs = ChatCompletion.Choice.Logprobs;

/** One tool call the model asked for, with its arguments parsed from JSON text. */
export interface ToolCall {
  readonly id: string;
  readonly name: string;
  readonly arguments: Record<string, unknown>;
}

/** What a chat call returns, read from the reply message. */
export interface ChatResponse {
  readonly content: string | null;
  readonly toolCalls: readonly ToolCall[];
  /** `message.reasoning_content`, else `message.reasoning`; an empty string reads as null. */
  readonly reasoning: string | null;
  /** The choice's logprobs, merged onto the message (they sit beside it on the wire). */
  readonly logprobs: ChatLogprobs | null;
  /** Mean of `logprobs.content[].logprob` over its valid entries (finite, above the -9999 sentinel, at most 0); null when there are none. */
  readonly meanLogprob: number | null;
  /** `choices[0].finish_reason` when the reply has one (`'length'` when a cap cut it). */
  readonly finishReason: FinishReason | null;
  /** The gateway's `message.reasoning_details`, as received, to replay unchanged on the next turn; else null. */
  readonly reasoningDetails: readonly ReasoningDetail[] | null;
  /** The records of the raw calls behind this response: one, or two after a JSON-mode retry; [] when none was made. */
  readonly calls: readonly CallRecord[];
  /** The sum of `calls[].costUsd`, summed exactly (in nano-dollars); null when none of them was priced. */
  readonly costUsd: number | null;
  /** The exact sum of `calls[].costNanoUsd` in whole nano-dollars (1e-9 USD); null when none of them was priced. */
  readonly costNanoUsd: number | null;
}
