import type { ChatTransport, TransportRequest } from '@switchboard/adapter';
import type { StreamEvent, TransportEventStream } from '../../src/index.js';

/** A transport whose plain calls answer `body` (a function of the request, or a fixed value) at once. */
export function plainTransport(body: unknown | ((request: TransportRequest) => unknown)): ChatTransport & {
  completeChatRaw(request: TransportRequest): Promise<unknown>;
} {
  const answer = (request: TransportRequest) =>
    typeof body === 'function' ? (body as (request: TransportRequest) => unknown)(request) : body;
  return {
    completeChat: async (request) => {
      const reply = answer(request) as { choices: [{ message: Record<string, unknown> }] };
      return reply.choices[0].message;
    },
    completeChatRaw: async (request) => structuredClone(answer(request)),
  };
}

/** A transport that streams `events` (a function of the request, or fixed), telling its one attempt. */
export function streamTransport(
  events: StreamEvent[] | ((request: TransportRequest) => StreamEvent[]),
  beforeEvent?: (request: TransportRequest, index: number) => void,
): ChatTransport & {
  streamChatRaw(request: TransportRequest): Promise<TransportEventStream>;
} {
  return {
    reportsAttempts: true,
    completeChat: async () => ({}),
    async streamChatRaw(request) {
      await request.beforeAttempt?.(1);
      let closed = false;
      const end = (failure: unknown | null) => {
        if (closed) return;
        closed = true;
        request.afterAttempt?.(1, failure);
      };
      const list = typeof events === 'function' ? events(request) : events;
      return {
        status: 200,
        headers: { 'content-type': 'text/event-stream' },
        close: (failure?: unknown) => end(failure ?? null),
        async *[Symbol.asyncIterator]() {
          for (const [index, event] of list.entries()) {
            await Promise.resolve();
            beforeEvent?.(request, index);
            yield event;
          }
          end(null);
        },
      };
    },
  };
}

/** A chunk of a stream: one choice's delta. */
export function chunk(delta: Record<string, unknown>, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({
    id: 'chatcmpl-t',
    object: 'chat.completion.chunk',
    model: 'primary-flash',
    choices: [{ index: 0, delta, finish_reason: null }],
    ...extra,
  });
}

/** The events of a stream answering `pieces` as content deltas, then a stop, the usage and [DONE]. */
export function contentEvents(pieces: readonly string[], field = 'content'): StreamEvent[] {
  return [
    { data: chunk({ role: 'assistant', content: '' }) },
    ...pieces.map((piece) => ({ data: chunk({ [field]: piece }) })),
    {
      data: JSON.stringify({
        id: 'chatcmpl-t',
        object: 'chat.completion.chunk',
        model: 'primary-flash',
        choices: [{ index: 0, delta: {}, finish_reason: 'stop' }],
      }),
    },
    {
      data: JSON.stringify({
        id: 'chatcmpl-t',
        object: 'chat.completion.chunk',
        choices: [],
        usage: { prompt_tokens: 5, completion_tokens: pieces.length, total_tokens: 5 + pieces.length },
      }),
    },
    { data: '[DONE]' },
  ];
}

/** A plain reply whose answer is `content`. */
export function replyWith(content: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id: 'chatcmpl-p',
    object: 'chat.completion',
    model: 'primary-flash',
    choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
    usage: { prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 },
    ...extra,
  };
}
