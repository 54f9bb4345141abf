import type { ChatClient, ChatResponse, ChatStream, CompleteRequest, ToolCall } from '@switchboard/adapter';
import { ScriptedStream } from './scripted-stream.js';

/** Options of a {@link ScriptedChatClient}. */
export interface ScriptedChatClientOptions {
  /** Start again at the first turn once the script is used up, instead of answering with empty content. Default false. */
  cycle?: boolean;
}

// Past the end of a script (without `cycle`), the model "has nothing more to say".
const EXHAUSTED: ChatResponse = toResponse({ content: '' });

function freezeToolCall(toolCall: ToolCall): ToolCall {
  return Object.freeze({
    id: toolCall.id,
    name: toolCall.name,
    arguments: Object.freeze({ ...toolCall.arguments }),
  });
}

// A missing field reads the way the adapter reads a reply without it: null, or no tool calls.
function toResponse(turn: Partial<ChatResponse>): ChatResponse {
  return Object.freeze({
    content: turn.content ?? null,
    toolCalls: Object.freeze((turn.toolCalls ?? []).map(freezeToolCall)),
    reasoning: turn.reasoning ?? null,
    logprobs: turn.logprobs ?? null,
    meanLogprob: turn.meanLogprob ?? null,
    finishReason: turn.finishReason ?? null,
    reasoningDetails: turn.reasoningDetails ?? null,
    // A scripted turn makes no raw call: nothing is recorded or priced.
    calls: Object.freeze([]),
    costUsd: null,
  });
}

/**
 * A chat client that answers from a fixed script, for running a pipeline offline.
 *
 * Call `i` gets turn `i`, completed into a whole, frozen `ChatResponse`: a missing
 * `content`, `reasoning`, `logprobs`, `meanLogprob` or `finishReason` is null and
 * missing `toolCalls` are `[]`. Past the end of the script every call gets
 * content `''` (and nothing else), or, with `cycle`, the script starts over.
 * Every request is recorded in `calls`, as given.
 */
export class ScriptedChatClient implements ChatClient {
  /** Every request made so far, in call order, as given (not copied). */
  readonly calls: CompleteRequest[] = [];
  readonly #turns: readonly ChatResponse[];
  readonly #cycle: boolean;

  /**
   * @param turns the answers, in call order; each is completed with the defaults above.
   * @param options `cycle`: wrap around past the end instead of answering `''`.
   */
  constructor(turns: Array<Partial<ChatResponse>>, options: ScriptedChatClientOptions = {}) {
    if (!Array.isArray(turns)) {
      throw new TypeError('ScriptedChatClient: turns must be an array of partial chat responses');
    }
    this.#turns = Object.freeze(turns.map(toResponse));
    this.#cycle = options.cycle ?? false;
  }

  /** Records the request and answers with the next turn of the script. */
  async complete(request: CompleteRequest): Promise<ChatResponse> {
    return this.#take(request);
  }

  /**
   * Records the request and streams the next turn of the script in
   * deterministic deltas: its reasoning, then its content, one word per delta,
   * then each tool call's id and name and its arguments' JSON text in pieces of
   * 16 characters; `response` is the turn, as `complete()` would return it.
   */
  stream(request: CompleteRequest): ChatStream {
    return new ScriptedStream(this.#take(request), request.signal);
  }

  #take(request: CompleteRequest): ChatResponse {
    const index = this.calls.length;
    this.calls.push(request);
    const count = this.#turns.length;
    if (index < count) return this.#turns[index] as ChatResponse;
    if (this.#cycle && count > 0) return this.#turns[index % count] as ChatResponse;
    return EXHAUSTED;
  }
}
