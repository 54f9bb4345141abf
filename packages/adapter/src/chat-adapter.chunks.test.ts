import { describe, expect, it } from 'vitest';
import type { OutputChunk } from './call-observer.js';
import { ChatAdapter } from './chat-adapter.js';
import type { ChatTransport, TransportStream, TransportStreamEvent } from './chat-transport.js';

const request = { model: 'primary-flash', messages: [{ role: 'user' as const, content: 'hi' }] };

/** A stream of events, each after its own wait in milliseconds. */
function timedStream(
  events: ReadonlyArray<readonly [waitMs: number, event: TransportStreamEvent]>,
): TransportStream {
  let index = 0;
  return {
    status: 200,
    headers: { 'content-type': 'text/event-stream' },
    close() {},
    [Symbol.asyncIterator]() {
      return {
        next: async () => {
          const entry = events[index];
          if (entry === undefined) return { done: true, value: undefined };
          index += 1;
          if (entry[0] > 0) await new Promise((resolve) => setTimeout(resolve, entry[0]));
          return { done: false, value: entry[1] };
        },
        return: async () => ({ done: true, value: undefined }),
      };
    },
  };
}

const content = (text: string): TransportStreamEvent => ({
  data: JSON.stringify({
    id: 'c1',
    model: 'primary-flash',
    choices: [{ index: 0, delta: { content: text } }],
  }),
});
const finish: TransportStreamEvent = {
  data: JSON.stringify({ id: 'c1', choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] }),
};
const usage: TransportStreamEvent = {
  data: JSON.stringify({ id: 'c1', choices: [], usage: { prompt_tokens: 3, completion_tokens: 4 } }),
};

function transportOf(events: ReadonlyArray<readonly [number, TransportStreamEvent]>): ChatTransport {
  return { completeChat: async () => ({ content: 'plain' }), streamChatRaw: async () => timedStream(events) };
}

describe('afterChunk: the time per output chunk of a streamed reply', () => {
  it('is told once per chunk after the first, with the model, the role and the wait since the previous chunk', async () => {
    const chunks: OutputChunk[] = [];
    const adapter = new ChatAdapter(
      transportOf([
        [0, content('One')],
        [0, content(' two')],
        [60, content(' three')],
        [0, content(' four')],
        [0, finish],
        [0, usage],
        [0, { data: '[DONE]' }],
      ]),
      { observers: [{ afterChunk: (chunk) => chunks.push(chunk) }] },
    );
    const stream = adapter.forRole('judge').stream(request);
    let text = '';
    for await (const delta of stream) if (delta.type === 'content') text += delta.text;
    expect(text).toBe('One two three four');
    expect(chunks.map(({ model, role }) => ({ model, role }))).toEqual(
      Array.from({ length: 3 }, () => ({ model: 'primary-flash', role: 'judge' })),
    );
    // The chunk that came 60 ms after the one before it says so; the others came at once.
    expect(chunks[1]?.sinceLastChunkMs).toBeGreaterThanOrEqual(50);
    for (const index of [0, 2]) expect(chunks[index]?.sinceLastChunkMs).toBeLessThan(50);
  });

  it('is not told for a plain call, nor for a stream of one chunk; an observer that throws changes nothing', async () => {
    const told: OutputChunk[] = [];
    const adapter = new ChatAdapter(
      transportOf([
        [0, content('Only')],
        [0, finish],
        [0, usage],
        [0, { data: '[DONE]' }],
      ]),
      {
        observers: [
          {
            afterChunk: () => {
              throw new Error('observer bug');
            },
          },
          { afterChunk: (chunk) => told.push(chunk) },
        ],
      },
    );
    expect((await adapter.stream(request).response).content).toBe('Only');
    expect((await adapter.complete(request)).content).toBe('plain');
    expect(told).toEqual([]);
  });

  it('refuses an observer whose afterChunk is not a function', () => {
    const adapter = new ChatAdapter(transportOf([]));
    expect(() => adapter.observe({ afterChunk: 'yes' } as never)).toThrow(/afterChunk\(chunk\)/);
  });
});
