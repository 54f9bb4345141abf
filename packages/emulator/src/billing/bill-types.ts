/**
 * One chat-completion request as the provider would bill it: the prompt (with
 * the cache split the emulator computed) and the completion tokens generated.
 */
export interface BilledRequest {
  /** The model the reply says answered (an alias mapped); for a refused request, the model asked for ('' if none). */
  readonly model: string;
  /** The request asked for a stream (`stream: true`). */
  readonly streamed: boolean;
  /**
   * `whole`: the reply was generated whole (a plain reply, even one cut while
   * written; a stream written to its end). `cut`: a stream broken off (by a
   * fault or the client) before its end. `error_after_output`: a reply that
   * failed after output (a stream's error event after generated text, an
   * `errorInBody` with choices). `refused`: answered 4xx/5xx (or by a fault
   * answer, or never answered) before any output: nothing billed.
   */
  readonly outcome: 'whole' | 'cut' | 'error_after_output' | 'refused';
  /** What was generated: all zero for a refused request. */
  readonly usage: {
    readonly prompt_tokens: number;
    readonly completion_tokens: number;
    readonly prompt_cache_hit_tokens: number;
    readonly prompt_cache_miss_tokens: number;
  };
  /** The cost at the shipped price table's prices, in whole nano-dollars (0 for a model it does not price). */
  readonly costNanoUsd: number;
}

/** What the provider would bill for the chat-completion requests answered since start or the last `reset()`. */
export interface EmulatorBill {
  /** The sum of the requests' `costNanoUsd`. */
  readonly totalNanoUsd: number;
  /** Every billed request, in the order the requests arrived (requests still in flight are not in it yet). */
  readonly requests: readonly BilledRequest[];
}
