import type { ChatDelta, ChatError, ChatResponse, ChatStream } from '@switchboard/adapter';

/** The characters of tool-call arguments per delta. */
const ARGUMENT_PIECE = 16;

/**
 * The deltas a scripted turn streams as, always the same for the same turn:
 * its reasoning, then its content, one word per delta (with the whitespace
 * before it; trailing whitespace rides on the last), then each tool call: its
 * id and name with empty arguments, then its arguments' JSON text in pieces of
 * 16 characters. The deltas join back into the turn.
 */
function scriptedDeltas(turn: ChatResponse): ChatDelta[] {
  const deltas: ChatDelta[] = [];
  for (const text of words(turn.reasoning ?? '')) deltas.push(Object.freeze({ type: 'reasoning', text }));
  for (const text of words(turn.content ?? '')) deltas.push(Object.freeze({ type: 'content', text }));
  turn.toolCalls.forEach((call, index) => {
    deltas.push(Object.freeze({ type: 'tool_call', index, id: call.id, name: call.name, argumentsText: '' }));
    const text = JSON.stringify(call.arguments);
    for (let start = 0; start < text.length; start += ARGUMENT_PIECE) {
      const argumentsText = text.slice(start, start + ARGUMENT_PIECE);
      deltas.push(Object.freeze({ type: 'tool_call', index, id: null, name: null, argumentsText }));
    }
  });
  return deltas;
}

function words(text: string): string[] {
  if (text === '') return [];
  const pieces = text.match(/\s*\S+/g) ?? [];
  const used = pieces.join('').length;
  if (pieces.length === 0) return [text];
  if (used < text.length) pieces[pieces.length - 1] += text.slice(used);
  return pieces;
}

/**
 * A scripted turn as a {@link ChatStream}: the deltas of {@link scriptedDeltas},
 * one per turn of the event loop, and `response`, the turn. `response`
 * settles when the iteration ends, or, when nobody starts iterating before the
 * next turn of the event loop, at once (awaiting it alone never waits). As for
 * a real stream, `abort()`, the request's signal or leaving a `for await` loop
 * early end it and reject a pending `response` with kind `aborted`.
 */
export class ScriptedStream implements ChatStream {
  readonly response: Promise<ChatResponse>;
  readonly #turn: ChatResponse;
  readonly #deltas: readonly ChatDelta[];
  #next = 0;
  #stopped: ChatError | null = null;
  #iterated = false;
  #settled = false;
  #settle!: { resolve: (response: ChatResponse) => void; reject: (error: unknown) => void };

  constructor(turn: ChatResponse, signal: AbortSignal | undefined) {
    this.#turn = turn;
    this.#deltas = scriptedDeltas(turn);
    this.response = new Promise<ChatResponse>((resolve, reject) => {
      this.#settle = { resolve, reject };
    });
    this.response.catch(() => {});
    if (signal?.aborted) this.abort(signal.reason);
    else signal?.addEventListener('abort', () => this.abort(signal.reason), { once: true });
    setImmediate(() => {
      if (!this.#iterated && this.#stopped === null) this.#end(null);
    });
  }

  abort(reason?: unknown): void {
    if (this.#stopped !== null || this.#next >= this.#deltas.length) return;
    this.#stopped = abortedError(reason);
    this.#end(this.#stopped);
  }

  [Symbol.asyncIterator](): AsyncIterator<ChatDelta> {
    if (this.#iterated) throw new TypeError('a ChatStream can be iterated only once');
    this.#iterated = true;
    return {
      next: async () => {
        await new Promise<void>((resolve) => setImmediate(resolve));
        if (this.#stopped !== null) throw this.#stopped;
        const delta = this.#deltas[this.#next];
        if (delta === undefined) {
          this.#end(null);
          return { done: true, value: undefined };
        }
        this.#next += 1;
        return { done: false, value: delta };
      },
      return: async () => {
        if (this.#next < this.#deltas.length) this.abort('the for-await loop was left early');
        this.#end(null);
        return { done: true, value: undefined };
      },
    };
  }

  #end(failure: ChatError | null): void {
    if (this.#settled) return;
    this.#settled = true;
    if (failure === null) this.#settle.resolve(this.#turn);
    else this.#settle.reject(failure);
  }
}

/**
 * A `ChatError` of kind `aborted`, made without loading the adapter at run time
 * (this package needs only its types): an `Error` carrying the fields of a
 * `ChatError` and the adapter's cross-copy marker, so `ChatError.isInstance`
 * recognises it as it recognises errors of another copy of the adapter.
 */
function abortedError(reason: unknown): ChatError {
  const error = new Error(
    'the scripted stream was aborted',
    reason === undefined ? undefined : { cause: reason },
  );
  error.name = 'ChatError';
  Object.defineProperty(error, Symbol.for('switchboard.chat-error'), { value: true });
  return Object.assign(error, {
    kind: 'aborted',
    status: null,
    retryable: false,
    degradation: false,
  }) as ChatError;
}
