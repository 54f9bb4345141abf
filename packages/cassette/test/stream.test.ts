import { readFileSync } from 'node:fs';
import { ChatError, type ChatTransport, type TransportRequest } from '@switchboard/adapter';
import { describe, expect, it } from 'vitest';
import {
  readCassette,
  recordCassette,
  replayCassette,
  type StreamEvent,
  type TransportEventStream,
} from '../src/index.js';
import { cassettePath } from './support/cassette-path.js';

const KEY = 'stream-key-5a5a5a5a5a5a5a5a';
const chunk = (delta: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    id: 'chatcmpl-s1',
    object: 'chat.completion.chunk',
    choices: [{ index: 0, delta }],
    ...extra,
  });
const EVENTS: StreamEvent[] = [
  { comment: ' keep-alive' },
  { data: chunk({ role: 'assistant', reasoning_content: 'Think ' }) },
  { data: chunk({ content: 'Hello, ' }) },
  { data: chunk({ content: 'world  \u00e9\u{1F600}\n' }) },
  {
    data: JSON.stringify({
      id: 'chatcmpl-s1',
      choices: [],
      usage: { prompt_tokens: 5, completion_tokens: 4 },
    }),
  },
  { data: '[DONE]' },
];

/** A transport that streams the given events, 10 ms apart, optionally failing at the end; it tells its attempts. */
function streamingTransport(events: StreamEvent[], failAtEnd: ChatError | null = null) {
  const told: Array<[number, unknown]> = [];
  const transport: ChatTransport & {
    streamChatRaw(request: TransportRequest): Promise<TransportEventStream>;
  } = {
    reportsAttempts: true,
    completeChat: async () => ({}),
    async streamChatRaw(request) {
      await request.beforeAttempt?.(1);
      let closed = false;
      const end = (failure: unknown | null) => {
        if (closed) return;
        closed = true;
        told.push([1, failure]);
        request.afterAttempt?.(1, failure);
      };
      return {
        status: 200,
        headers: {
          'content-type': 'text/event-stream',
          'x-request-id': `req-${KEY}`,
          'set-cookie': `s=${KEY}`,
        },
        close: (failure?: unknown) => end(failure ?? null),
        async *[Symbol.asyncIterator]() {
          for (const event of events) {
            await new Promise((resolve) => setTimeout(resolve, 10));
            yield event;
          }
          if (failAtEnd) {
            end(failAtEnd);
            throw failAtEnd;
          }
          end(null);
        },
      };
    },
  };
  return { transport, told };
}

const request = (content: string): TransportRequest => ({
  model: 'primary-flash',
  messages: [{ role: 'user', content }],
  tools: undefined,
  timeoutSeconds: 60,
  extraBody: {},
});

async function drain(stream: TransportEventStream): Promise<StreamEvent[]> {
  const seen: StreamEvent[] = [];
  for await (const event of stream) seen.push(event);
  return seen;
}

describe('streams in a cassette', () => {
  it('records every event with its delay and replays them byte for byte, with the status and allowlisted headers', async () => {
    const path = cassettePath('stream');
    const { transport } = streamingTransport(EVENTS);
    const recorder = recordCassette(path, transport, { apiKey: KEY });
    const live = await drain(await recorder.streamChatRaw(request('hi')));
    expect(live).toEqual(EVENTS);
    const [entry] = readCassette(path).entries;
    expect(entry?.streamed).toBe(true);
    expect(entry?.request).toMatchObject({ stream: true, stream_options: { include_usage: true } });
    const reply = entry?.reply as unknown as { events: { ms: number }[]; headers: Record<string, string> };
    expect(reply.events).toHaveLength(EVENTS.length);
    expect(reply.events.every((event) => event.ms >= 5)).toBe(true);
    expect(Object.keys(reply.headers)).toEqual(['content-type', 'x-request-id']);
    expect(readFileSync(path, 'utf8')).not.toContain(KEY);

    const told: Array<[number, unknown]> = [];
    const replay = replayCassette(path);
    const stream = await replay.streamChatRaw({
      ...request('hi'),
      afterAttempt: (attempt, failure) => told.push([attempt, failure]),
    });
    expect(stream.status).toBe(200);
    expect(stream.headers['content-type']).toBe('text/event-stream');
    const replayed = await drain(stream);
    expect(replayed).toEqual(EVENTS);
    expect(replayed.map((event) => ('data' in event ? event.data : event.comment)).join('\n')).toBe(
      EVENTS.map((event) => ('data' in event ? event.data : event.comment)).join('\n'),
    );
    expect(told).toEqual([[1, null]]);
    // A plain call with the same messages is another request: the stream flag is part of the match.
    await expect(replay.completeChatRaw(request('hi'))).rejects.toMatchObject({ kind: 'cassette_miss' });
  });

  it('replays a stream that failed mid-way: the same events, then the same error', async () => {
    const path = cassettePath('stream-cut');
    const cut = new ChatError({ kind: 'connection', message: 'the stream was cut off' });
    const { transport } = streamingTransport(EVENTS.slice(0, 3), cut);
    const recorder = recordCassette(path, transport, { apiKey: KEY });
    await expect(drain(await recorder.streamChatRaw(request('cut')))).rejects.toBe(cut);
    const told: Array<[number, unknown]> = [];
    const stream = await replayCassette(path).streamChatRaw({
      ...request('cut'),
      afterAttempt: (attempt, failure) => told.push([attempt, failure]),
    });
    const seen: StreamEvent[] = [];
    const failure = await (async () => {
      for await (const event of stream) seen.push(event);
    })().catch((error: unknown) => error);
    expect(seen).toEqual(EVENTS.slice(0, 3));
    expect(ChatError.isInstance(failure) && failure.kind).toBe('connection');
    expect((failure as Error).message).toBe('the stream was cut off');
    expect(told.map(([attempt, error]) => [attempt, ChatError.isInstance(error) && error.kind])).toEqual([
      [1, 'connection'],
    ]);
  });

  it('replays with the recorded delays when asked', async () => {
    const path = cassettePath('stream-timed');
    const { transport } = streamingTransport(EVENTS);
    await drain(await recordCassette(path, transport).streamChatRaw(request('slow')));
    const started = performance.now();
    await drain(await replayCassette(path, { timing: 'recorded' }).streamChatRaw(request('slow')));
    expect(performance.now() - started).toBeGreaterThanOrEqual(EVENTS.length * 8);
  });
});
