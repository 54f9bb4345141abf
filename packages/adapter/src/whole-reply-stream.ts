import type { TransportStream, TransportStreamEvent } from './chat-transport.js';
import { isRecord } from './read-field.js';
import type { WireReply } from './wire-reply.js';

/**
 * A stream made of a whole JSON reply, for a server that answers a streamed
 * request with a plain `chat.completion` (it ignored `stream: true`): one
 * chunk whose delta is the reply's message (with its usage), then `[DONE]`.
 */
export class WholeReplyStream implements TransportStream {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly #events: TransportStreamEvent[];
  readonly #onEnd: (failure: unknown | null) => void;
  #next = 0;
  #closed = false;

  constructor(response: WireReply, reply: Record<string, unknown>, onEnd: (failure: unknown | null) => void) {
    this.status = response.status;
    this.headers = Object.freeze(Object.fromEntries(response.headers));
    this.#onEnd = onEnd;
    const choices = Array.isArray(reply.choices) ? reply.choices : [];
    const chunk = {
      ...reply,
      object: 'chat.completion.chunk',
      choices: choices.map((choice: unknown) => {
        if (!isRecord(choice)) return choice;
        const { message, ...rest } = choice;
        return { ...rest, delta: message };
      }),
    };
    this.#events = [{ data: JSON.stringify(chunk) }, { data: '[DONE]' }];
  }

  [Symbol.asyncIterator](): AsyncIterator<TransportStreamEvent> {
    return {
      next: async () => {
        const event = this.#closed ? undefined : this.#events[this.#next];
        if (event === undefined) {
          this.close();
          return { done: true, value: undefined };
        }
        this.#next += 1;
        return { done: false, value: event };
      },
      return: async () => {
        this.close();
        return { done: true, value: undefined };
      },
    };
  }

  close(failure?: unknown): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#onEnd(failure ?? null);
  }
}
