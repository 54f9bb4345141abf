import { readFileSync } from 'node:fs';
import { inspect } from 'node:util';
import {
  ChatAdapter,
  ChatError,
  type ChatTransport,
  type CompleteRequest,
  OpenAITransport,
} from '@switchboard/adapter';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readCassette, recordCassette, replayCassette, SECRET_MARKER, scrubSecrets } from '../src/index.js';
import { cassettePath } from './support/cassette-path.js';
import { startEchoServer } from './support/echo-server.js';

const KEY = 'team-key-7f3a9c2e41d04b6f8a5e';
const ask = (content: string): CompleteRequest => ({
  model: 'primary-flash',
  messages: [{ role: 'user', content }],
});

let server: Awaited<ReturnType<typeof startEchoServer>>;
beforeAll(async () => {
  server = await startEchoServer();
});
afterAll(() => server.close());

/** Every form a careless cassette could hold the key in. */
function expectNoKey(text: string): void {
  expect(text).not.toContain(KEY);
  expect(text).not.toContain(encodeURIComponent(KEY));
  expect(text).not.toContain(Buffer.from(KEY).toString('base64').replace(/=+$/, ''));
}

describe('secrets and cassettes', () => {
  it('keeps the key out of the file when it is in a request body, an error body, a header and the URL', async () => {
    const path = cassettePath('leaky');
    // The key is in the base address's path too, so every error message quotes it in the URL.
    const transport = new OpenAITransport({ apiKey: KEY, baseUrl: `${server.url}/${KEY}` });
    const adapter = new ChatAdapter(
      recordCassette(path, transport, {
        apiKey: KEY,
        endpoint: {
          provider: 'custom',
          baseUrl: `${server.url}/${KEY}`,
          thinking: false,
          prices: null,
          pricingModel: null,
        },
      }),
    );
    const echoed = await adapter.complete(ask(`my key is ${KEY}`));
    expect(echoed.content).toContain(KEY);
    const failure = await adapter.complete(ask('error')).catch((error: unknown) => error);
    expect(ChatError.isInstance(failure) && failure.kind).toBe('auth');

    const text = readFileSync(path, 'utf8');
    expectNoKey(text);
    expect(text).toContain(SECRET_MARKER);
    expect(text).not.toContain('set-cookie');
    expect(readCassette(path).entries.map((entry) => entry.key)).toEqual([true, true]);

    // The request with the key in it still finds its recording: both sides are scrubbed the same way.
    const replay = new ChatAdapter(replayCassette(path, { apiKey: 'some-other-key-value' }));
    expect((await replay.complete(ask(`my key is ${'some-other-key-value'}`))).content).toBe(
      `you sent ${SECRET_MARKER} and my key is ${SECRET_MARKER}`,
    );
    // A reply recorded as a 401 stays a 401.
    const replayedFailure = await replay.complete(ask('error')).catch((error: unknown) => error);
    expect(ChatError.isInstance(replayedFailure) && replayedFailure.status).toBe(401);
  });

  it('removes the key from a reply that quotes it base64-encoded, rather than keeping or refusing the call', async () => {
    const path = cassettePath('encoded');
    const adapter = new ChatAdapter(
      recordCassette(path, new OpenAITransport({ apiKey: KEY, baseUrl: server.url }), { apiKey: KEY }),
    );
    await adapter.complete(ask('fine'));
    const encoded = await adapter.complete(ask('encoded'));
    expect(encoded.content).toBe(Buffer.from(KEY).toString('base64'));
    const text = readFileSync(path, 'utf8');
    expectNoKey(text);
    expect(readCassette(path).entries).toHaveLength(2);
  });

  it('scrubs what a transport of its own puts in its errors, and credential shapes whatever the key', async () => {
    const path = cassettePath('stub');
    const stub: ChatTransport = {
      completeChat: async () => {
        throw new ChatError({
          kind: 'bad_request',
          status: 400,
          message: `rejected ${KEY}; also Authorization: Bearer abcdefghijkl0123 and sk-proj-abcdefghijklmnop0123 at https://user:pw@example.test/?api_key=zzz`,
        });
      },
    };
    const adapter = new ChatAdapter(recordCassette(path, stub, { apiKey: KEY }));
    await expect(adapter.complete(ask('x'))).rejects.toThrow();
    const text = readFileSync(path, 'utf8');
    expectNoKey(text);
    for (const leak of ['abcdefghijkl0123', 'sk-proj-abcdefghijklmnop0123', 'user:pw', 'api_key=zzz']) {
      expect(text).not.toContain(leak);
    }
  });

  it('scrubSecrets replaces the key in keys and values at any depth', () => {
    expect(scrubSecrets({ [KEY]: [{ deep: `a${KEY}b` }] }, KEY)).toEqual({
      [SECRET_MARKER]: [{ deep: `a${SECRET_MARKER}b` }],
    });
  });

  it('never shows the key in the JSON or inspected form of a recording or replaying transport, or of a miss', async () => {
    const path = cassettePath('inspect');
    const recorder = recordCassette(path, new OpenAITransport({ apiKey: KEY, baseUrl: server.url }), {
      apiKey: KEY,
    });
    await new ChatAdapter(recorder).complete(ask('fine'));
    const replay = replayCassette(path, { apiKey: KEY });
    const miss = await new ChatAdapter(replay).complete(ask(`other ${KEY}`)).catch((error: unknown) => error);
    for (const shown of [recorder, replay, miss]) {
      expect(JSON.stringify(shown) ?? '').not.toContain(KEY);
      expect(inspect(shown, { depth: 10, showHidden: true })).not.toContain(KEY);
    }
    expect(String((miss as Error).message)).toContain(SECRET_MARKER);
  });
});
