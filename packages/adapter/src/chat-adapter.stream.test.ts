import { describe, expect, it } from 'vitest';
import { ChatAdapter } from './chat-adapter.js';
import type { ChatTransport, TransportStream, TransportStreamEvent } from './chat-transport.js';

const request = { model: 'primary-flash', messages: [{ role: 'user' as const, content: 'hi' }] };

/** A stream of fixed events, as a recorder or replayer would hand them on; it notes how it was closed. */
function eventStream(events: readonly TransportStreamEvent[], closed: unknown[] = []): TransportStream {
  let index = 0;
  let done = false;
  return {
    status: 200,
    headers: { 'content-type': 'text/event-stream' },
    close(failure?: unknown) {
      if (done) return;
      done = true;
      closed.push(failure ?? null);
    },
    [Symbol.asyncIterator]() {
      return {
        next: async () => {
          if (done || index >= events.length) return { done: true, value: undefined };
          const value = events[index] as TransportStreamEvent;
          index += 1;
          return { done: false, value };
        },
        return: async () => {
          done = true;
          return { done: true, value: undefined };
        },
      };
    },
  };
}

const chunk = (delta: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  data: JSON.stringify({
    id: 'c1',
    model: 'primary-flash',
    choices: [{ index: 0, delta, finish_reason: null, ...extra }],
  }),
});

/** A transport without attempt reports that streams `events` on every call. */
function transportOf(events: readonly TransportStreamEvent[], closed: unknown[] = []): ChatTransport {
  return {
    completeChat: async () => ({ content: 'plain' }),
    streamChatRaw: async () => eventStream(events, closed),
  };
}

describe('ChatAdapter.stream over any transport that streams', () => {
  it('reads plain { data } / { comment } events, one attempt told to the observers', async () => {
    const closed: unknown[] = [];
    const adapter = new ChatAdapter(
      transportOf(
        [
          { comment: ' keep-alive' },
          chunk({ role: 'assistant', content: '' }),
          chunk({ content: 'Hello' }),
          chunk({ content: ' there' }),
          chunk({}, { finish_reason: 'stop' }),
          {
            data: JSON.stringify({
              id: 'c1',
              choices: [],
              usage: { prompt_tokens: 3, completion_tokens: 2 },
            }),
          },
          { data: '[DONE]' },
        ],
        closed,
      ),
    );
    const attempts: number[] = [];
    const ends: unknown[] = [];
    adapter.observe({
      beforeAttempt: (info) => {
        attempts.push(info.attempt);
        return { end: (outcome) => void ends.push(outcome.record?.streamed) };
      },
    });
    const stream = adapter.stream(request);
    const deltas = [];
    for await (const delta of stream) deltas.push(delta);
    const response = await stream.response;
    expect(deltas).toEqual([
      { type: 'content', text: 'Hello' },
      { type: 'content', text: ' there' },
    ]);
    expect(response.content).toBe('Hello there');
    expect(response.finishReason).toBe('stop');
    expect(response.calls[0]).toMatchObject({
      usage: { prompt_tokens: 3 },
      responseId: 'c1',
      attempts: 1,
      streamed: true,
    });
    expect(attempts).toEqual([1]);
    expect(ends).toEqual([true]);
    expect(closed).toEqual([null]);
  });

  it('assembles tool calls from fragments by index, and reasoning_details pieces by their index', async () => {
    const adapter = new ChatAdapter(
      transportOf([
        chunk({ role: 'assistant', content: '' }),
        chunk({ reasoning: 'Look', reasoning_details: [{ type: 'reasoning.text', text: 'Look', index: 0 }] }),
        chunk({
          reasoning: ' here',
          reasoning_details: [{ type: 'reasoning.text', text: ' here', signature: 's1', index: 0 }],
        }),
        chunk({
          tool_calls: [
            { index: 0, id: 'call_a', type: 'function', function: { name: 'grep', arguments: '' } },
          ],
        }),
        chunk({
          tool_calls: [
            { index: 1, id: 'call_b', type: 'function', function: { name: 'read', arguments: '{"p' } },
          ],
        }),
        chunk({ tool_calls: [{ index: 0, function: { arguments: '{"q":' } }] }),
        chunk({ tool_calls: [{ index: 0, function: { arguments: '1}' } }] }),
        chunk({ tool_calls: [{ index: 1, function: { arguments: '":2}' } }] }),
        chunk({}, { finish_reason: 'tool_calls' }),
        { data: '[DONE]' },
      ]),
    );
    const response = await adapter.stream(request).response;
    expect(response.reasoning).toBe('Look here');
    expect(response.reasoningDetails).toEqual([
      { type: 'reasoning.text', text: 'Look here', signature: 's1', index: 0 },
    ]);
    expect(response.toolCalls).toEqual([
      { id: 'call_a', name: 'grep', arguments: { q: 1 } },
      { id: 'call_b', name: 'read', arguments: { p: 2 } },
    ]);
  });

  it('closes a stream that opens after the call was aborted (a transport that ignores the signal)', async () => {
    const closed: unknown[] = [];
    let open: (stream: TransportStream) => void = () => {};
    const adapter = new ChatAdapter({
      completeChat: async () => ({}),
      streamChatRaw: () => new Promise<TransportStream>((resolve) => (open = resolve)),
    });
    const stream = adapter.stream(request);
    await new Promise((resolve) => setTimeout(resolve, 5));
    stream.abort();
    await expect(stream.response).rejects.toMatchObject({ kind: 'aborted' });
    open(eventStream([{ data: '[DONE]' }], closed));
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(closed).toHaveLength(1);
    expect(closed[0]).toMatchObject({ kind: 'aborted' });
  });

  it('is a TypeError on a transport that cannot stream, and checks deadlineSeconds', () => {
    const adapter = new ChatAdapter({ completeChat: async () => ({}) });
    expect(() => adapter.stream(request)).toThrow(/cannot stream: it has no streamChatRaw/);
    const streaming = new ChatAdapter(transportOf([]));
    expect(() => streaming.stream({ ...request, deadlineSeconds: -1 } as typeof request)).toThrow(
      /request.deadlineSeconds must be a positive finite number/,
    );
  });

  it('a stream that yields nothing and ends is a connection failure, with no cost guessed past what is known', async () => {
    const adapter = new ChatAdapter(transportOf([chunk({ role: 'assistant', content: '' })]), {
      endpoint: { cost: (usage) => ((usage as { completion_tokens: number }).completion_tokens + 1) / 1e6 },
    });
    const error = await adapter.stream(request).response.catch((caught: unknown) => caught);
    expect(error).toMatchObject({ kind: 'connection' });
    expect((error as { partial?: unknown }).partial).toBeUndefined();
    expect(adapter.costUsd()).toBe(1e-6);
  });
});

describe('ChatAdapter.stream: streams no event can blow up', () => {
  const finish = chunk({}, { finish_reason: 'stop' });

  it('keeps a tool call at index 50,000,000 as one call: no gap is filled', async () => {
    const huge = chunk({
      tool_calls: [
        { index: 50_000_000, id: 'call_1', type: 'function', function: { name: 'grep', arguments: '{}' } },
      ],
    });
    const adapter = new ChatAdapter(transportOf([huge, finish, { data: '[DONE]' }]));
    const stream = adapter.stream(request);
    const deltas = [];
    for await (const delta of stream) deltas.push(delta);
    const response = await stream.response;
    expect(response.toolCalls).toHaveLength(1);
    expect(response.toolCalls[0]).toMatchObject({ id: 'call_1', name: 'grep' });
    expect(deltas).toEqual([
      { type: 'tool_call', index: 50_000_000, id: 'call_1', name: 'grep', argumentsText: '{}' },
    ]);
    expect(process.memoryUsage().heapUsed).toBeLessThan(1024 * 1024 * 1024);
  });

  it('refuses a stream that opens more than 1,024 tool calls as bad_reply', async () => {
    const events = Array.from({ length: 1025 }, (_, index) =>
      chunk({
        tool_calls: [{ index: index * 1000, id: `c${index}`, function: { name: 'f', arguments: '' } }],
      }),
    );
    const adapter = new ChatAdapter(transportOf([...events, finish, { data: '[DONE]' }]));
    await expect(adapter.stream(request).response).rejects.toMatchObject({ kind: 'bad_reply' });
  });

  it('holds back 80,000 whitespace pieces in JSON mode and releases them whole with the first content', async () => {
    const spaces = Array.from({ length: 80_000 }, (_, index) => chunk({ content: index % 2 ? ' ' : '\n' }));
    const adapter = new ChatAdapter(
      transportOf([...spaces, chunk({ content: '{"ok":true}' }), finish, { data: '[DONE]' }]),
    );
    const stream = adapter.stream({ ...request, jsonObject: true });
    const deltas = [];
    for await (const delta of stream) deltas.push(delta);
    expect(deltas).toHaveLength(1);
    const text = (deltas[0] as { text: string }).text;
    expect(text.length).toBe(80_000 + '{"ok":true}'.length);
    expect(text.endsWith('{"ok":true}')).toBe(true);
    expect((await stream.response).content).toBe(text);
  });

  it('a reader that takes one delta and stops asking does not stall the rest of a short stream', async () => {
    const pieces = Array.from({ length: 20 }, (_, index) => chunk({ content: `p${index}` }));
    const adapter = new ChatAdapter(
      transportOf([...pieces, chunk({}, { finish_reason: 'stop' }), { data: '[DONE]' }]),
    );
    const stream = adapter.stream(request);
    const iterator = stream[Symbol.asyncIterator]();
    expect(await iterator.next()).toEqual({ done: false, value: { type: 'content', text: 'p0' } });
    // It never asks again: the stream still reads to its end.
    const response = await stream.response;
    expect(response.content).toBe(Array.from({ length: 20 }, (_, index) => `p${index}`).join(''));
    const rest = [];
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) rest.push(next.value);
    expect(rest).toHaveLength(19);
  });
});
