import { readFileSync } from 'node:fs';
import { type ChatTransport, FetchTransport } from '@switchboard/adapter';
import { describe, expect, it, vi } from 'vitest';
import { readCassette, recordCassette, replayCassette, type TransportEventStream } from '../src/index.js';
import { cassettePath } from './support/cassette-path.js';
import { longStreamData, serveDuringTests, startSseServer, streamedText } from './support/sse-server.js';

const KEY = 'long-stream-key-0123456789';
const EVENTS = 3000;
const DATA = longStreamData(EVENTS);
const url = serveDuringTests(DATA);

/** The wire transport, its streams' `next()` calls counted (what a reader waits a turn for). */
function counted(): { transport: ChatTransport; nexts: () => number } {
  const live = new FetchTransport({ apiKey: KEY, baseUrl: url() });
  let nexts = 0;
  const transport = new Proxy(live, {
    get(target, name, receiver) {
      if (name !== 'streamChatRaw') return Reflect.get(target, name, receiver);
      return async (...args: Parameters<NonNullable<typeof live.streamChatRaw>>) => {
        const stream = (await target.streamChatRaw(...args)) as TransportEventStream;
        const wrapped: TransportEventStream = {
          status: stream.status,
          headers: stream.headers,
          close: (failure?: unknown) => stream.close(failure),
          ...(stream.takeBuffered ? { takeBuffered: () => stream.takeBuffered?.() } : {}),
          [Symbol.asyncIterator]() {
            const iterator = stream[Symbol.asyncIterator]();
            return {
              next: () => {
                nexts += 1;
                return iterator.next();
              },
              return: (value?: unknown) => iterator.return?.(value) ?? Promise.resolve({ done: true, value }),
            };
          },
        };
        return wrapped;
      };
    },
  });
  return { transport, nexts: () => nexts };
}

const expected = Array.from({ length: EVENTS }, (_, index) => ` w${index}`).join('');

describe('recording a long stream (issue 40 §6)', () => {
  it('passes on the events the wire already read without a turn each, as the adapter reads a stream of its own', async () => {
    const plain = counted();
    expect(await streamedText(plain.transport)).toBe(expected);
    const recorded = counted();
    expect(
      await streamedText(
        recordCassette(cassettePath('buffered'), recorded.transport, { apiKey: KEY, env: {} }),
      ),
    ).toBe(expected);
    // One turn per read of the body (64 KiB at most), not one per event: as many as reading without recording.
    expect(recorded.nexts()).toBeLessThan(EVENTS / 20);
    expect(recorded.nexts()).toBeLessThanOrEqual(plain.nexts() + 2);
  });

  it('parses the common chunk once to learn it, not once an event, and keeps each event as it came', async () => {
    const parse = vi.spyOn(JSON, 'parse');
    try {
      await streamedText(new FetchTransport({ apiKey: KEY, baseUrl: url() }));
      const reading = parse.mock.calls.length;
      parse.mockClear();
      const path = cassettePath('parsed-once');
      await streamedText(
        recordCassette(path, new FetchTransport({ apiKey: KEY, baseUrl: url() }), {
          apiKey: KEY,
          env: {},
        }),
      );
      // The recorder's own: the chunks before the common one is learned, the proof of its cut, the ends.
      expect(parse.mock.calls.length - reading).toBeLessThan(20);
      parse.mockRestore();
      const [entry] = readCassette(path).entries;
      const events = (entry as unknown as { reply: { events: Array<{ data?: string }> } }).reply.events;
      expect(events.map((event) => event.data)).toEqual(DATA);
      expect(readFileSync(path, 'utf8')).not.toContain(KEY);
      expect(await streamedText(replayCassette(path, { apiKey: 'replay' }))).toBe(expected);
    } finally {
      parse.mockRestore();
    }
  });

  it('removes a key split over the common chunks, three characters each, the rest as it came', async () => {
    const secret = `${KEY}-split`;
    const pieces = `key: ${secret} end`.match(/.{1,3}/gs) ?? [];
    const data = longStreamData(pieces.length, (index) => pieces[index] as string);
    const split = await startSseServer(data);
    try {
      const path = cassettePath('split-over-chunks');
      const transport = new FetchTransport({ apiKey: KEY, baseUrl: split.url });
      await streamedText(recordCassette(path, transport, { apiKey: KEY, secrets: [secret], env: {} }));
      const file = readFileSync(path, 'utf8');
      expect(file).not.toContain(KEY);
      expect(await streamedText(replayCassette(path, { apiKey: 'replay' }))).toBe(
        'key: [secret removed] end',
      );
    } finally {
      await split.close();
    }
  });
});
