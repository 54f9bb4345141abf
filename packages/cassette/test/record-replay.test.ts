import { readFileSync } from 'node:fs';
import { ChatAdapter, ChatError, type CompleteRequest, OpenAITransport } from '@switchboard/adapter';
import { closeTestEmulators, startTestEmulator } from '@switchboard/test-support';
import { afterEach, describe, expect, it } from 'vitest';
import { CassetteMissError, readCassette, recordCassette, replayCassette } from '../src/index.js';
import { cassettePath } from './support/cassette-path.js';

const KEY = 'test-key-0123456789abcdef';

afterEach(closeTestEmulators);

describe('recordCassette then replayCassette', () => {
  it('replays the same replies, attempts included, with no server', async () => {
    const emulator = await startTestEmulator({
      key: KEY,
      faults: [{ requests: [2], status: 429, retryAfterMs: 5 }],
    });
    const path = cassettePath();
    const live = new OpenAITransport({ apiKey: KEY, baseUrl: emulator.url });
    const recorder = new ChatAdapter(recordCassette(path, live, { apiKey: KEY }));
    const request: CompleteRequest = {
      model: 'primary-flash',
      messages: [{ role: 'user', content: 'hello there' }],
    };
    const first = await recorder.complete(request);
    const second = await recorder.complete({ ...request, messages: [{ role: 'user', content: 'again' }] });
    expect(second.calls[0]?.attempts).toBe(2);
    await emulator.close();

    const replayer = new ChatAdapter(replayCassette(path, { apiKey: 'anything' }));
    const replayedFirst = await replayer.complete(request);
    const replayedSecond = await replayer.complete({
      ...request,
      messages: [{ role: 'user', content: 'again' }],
    });
    const strip = (response: typeof first) => ({
      ...response,
      // A replay is a call of its own: its own id and time.
      calls: response.calls.map(({ at, durationMs, callId, ...call }) => call),
    });
    expect(strip(replayedFirst)).toEqual(strip(first));
    expect(strip(replayedSecond)).toEqual(strip(second));
    expect(readFileSync(path, 'utf8')).not.toContain(KEY);
    const error = await replayer.complete(request).catch((failure: unknown) => failure);
    expect(error).toBeInstanceOf(CassetteMissError);
    expect(ChatError.isInstance(error) && error.kind).toBe('cassette_miss');
    expect(readCassette(path).entries).toHaveLength(2);
  });
});
