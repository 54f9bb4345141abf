import { runInNewContext } from 'node:vm';
import { startEmulator } from '@switchboard/emulator';
import { sharedEmulator } from '@switchboard/test-support';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { OpenAITransport } from '../../src/index.js';
import { failureOf } from '../support/failure-of.js';
import { chatRequests, transportRequest, transportTo } from '../support/transport-to.js';
import { WIRE_TRANSPORTS } from '../support/wire-transports.js';

// Issue 10, observations 3 and 4: the process environment bent the wire (OPENAI_CUSTOM_HEADERS
// added headers and replaced the Authorization header; OPENAI_LOG=debug printed replies), and
// redirects were followed (a 307/308 re-posted the prompt to another origin, a 301/302 turned into
// a GET read as an answer). Each OPENAI_* variable the SDK reads gets a canary value here.

const KEY = 'wire-environment-key-2f8e';
const emulator = sharedEmulator({ key: KEY });
const request = transportRequest('Is the release tagged?', 10);

/** Another origin: where an OPENAI_BASE_URL or a redirect would send the prompt. */
let elsewhere: Awaited<ReturnType<typeof startEmulator>>;
beforeAll(async () => {
  elsewhere = await startEmulator({});
});
afterAll(async () => {
  await elsewhere.close();
});
afterEach(() => {
  vi.unstubAllEnvs();
  vi.restoreAllMocks();
  elsewhere.reset();
});

const recordedHeaders = () => emulator().requests.map((recorded) => recorded.headers);

describe.each(WIRE_TRANSPORTS)('$name under OPENAI_* variables (issue 10.3)', (wire) => {
  it('OPENAI_CUSTOM_HEADERS neither replaces the Authorization header nor adds headers', async () => {
    vi.stubEnv(
      'OPENAI_CUSTOM_HEADERS',
      'Authorization: Bearer other-tool-key\nX-Canary-Header: canary-value',
    );
    // The emulator answers 401 to any key but KEY: a 200 shows our key went out.
    await transportTo(emulator(), KEY, {}, wire).completeChatRaw(request);
    expect(JSON.stringify(recordedHeaders())).not.toMatch(/canary|other-tool-key/i);
  });

  it('OPENAI_BASE_URL sends nothing elsewhere', async () => {
    vi.stubEnv('OPENAI_BASE_URL', elsewhere.url);
    await transportTo(emulator(), KEY, {}, wire).completeChatRaw(request);
    expect(chatRequests(emulator())).toBe(1);
    expect(elsewhere.requests).toHaveLength(0);
  });

  it.each([
    ['OPENAI_API_KEY', 'sk-canary-env-api-key'],
    ['OPENAI_ADMIN_KEY', 'sk-canary-env-admin-key'],
  ])('%s adds no credentials to a transport with an empty key', async (name, value) => {
    vi.stubEnv(name, value);
    const error = await failureOf(
      transportTo(emulator(), '', { maxAttempts: 1 }, wire).completeChatRaw(request),
    );
    expect(error).toMatchObject({ kind: 'auth', status: 401 });
    expect(recordedHeaders()[0]).not.toHaveProperty('authorization');
  });

  it.each([
    ['OPENAI_ORG_ID', 'canary-org'],
    ['OPENAI_PROJECT_ID', 'canary-project'],
    ['OPENAI_WEBHOOK_SECRET', 'canary-webhook-secret'],
  ])('%s puts nothing on the wire', async (name, value) => {
    vi.stubEnv(name, value);
    await transportTo(emulator(), KEY, {}, wire).completeChatRaw(request);
    expect(JSON.stringify(recordedHeaders())).not.toContain(value);
    expect(recordedHeaders()[0]).not.toHaveProperty('openai-organization');
    expect(recordedHeaders()[0]).not.toHaveProperty('openai-project');
  });

  it('OPENAI_LOG=debug prints nothing, also for a reply that echoes the key', async () => {
    vi.stubEnv('OPENAI_LOG', 'debug');
    const printed: unknown[] = [];
    for (const method of ['debug', 'info', 'log', 'warn', 'error'] as const) {
      vi.spyOn(console, method).mockImplementation((...args: unknown[]) => {
        printed.push(args);
      });
    }
    const transport = transportTo(emulator(), KEY, { maxAttempts: 2 }, wire);
    await transport.completeChatRaw(request);
    emulator().setFaults([
      { status: 400, body: `{"error":{"message":"bad token ${KEY}"}}`, contentType: 'application/json' },
    ]);
    const error = await failureOf(transport.completeChatRaw(request));
    expect(error.message).not.toContain(KEY);
    expect(printed).toEqual([]);
  });
});

describe.each(WIRE_TRANSPORTS)('$name and redirects (issue 10.4)', (wire) => {
  it.each([307, 308, 301, 302, 303] as const)(
    'refuses a %i to another origin: bad_reply, not retried, nothing sent there',
    async (status) => {
      emulator().setFaults([{ redirect: { status, location: `${elsewhere.url}/chat/completions?token=x` } }]);
      const error = await failureOf(transportTo(emulator(), KEY, {}, wire).completeChatRaw(request));
      expect(error).toMatchObject({ kind: 'bad_reply', retryable: false });
      if (wire.name === 'FetchTransport') {
        // fetch refuses the redirect itself (`redirect: 'error'`), and keeps neither its status nor its target.
        expect(error.status).toBeNull();
        expect(error.message).toContain(
          'answered with a redirect (301, 302, 303, 307 or 308); redirects are refused',
        );
        expect(error.message).not.toContain(elsewhere.url);
      } else {
        // node:http hands the 3xx back as it came: refused by its status, naming its target's origin only.
        expect(error.status).toBe(status);
        expect(error.message).toContain(`redirects are refused (to ${new URL(elsewhere.url).origin})`);
      }
      expect(error.message).not.toContain('token=x');
      expect(chatRequests(emulator())).toBe(1);
      expect(elsewhere.requests).toHaveLength(0);
    },
  );
});

describe('OpenAITransport with a given fetch, and redirects (issue 10.4)', () => {
  it('refuses a redirect through a given fetch too', async () => {
    emulator().setFaults([{ redirect: { status: 307, location: `${elsewhere.url}/chat/completions` } }]);
    const transport = new OpenAITransport({
      apiKey: KEY,
      baseUrl: emulator().url,
      fetch: (input, init) => fetch(input, init),
    });
    const error = await failureOf(transport.completeChatRaw(request));
    expect(error).toMatchObject({ kind: 'bad_reply', retryable: false });
    expect(chatRequests(emulator())).toBe(1);
    expect(elsewhere.requests).toHaveLength(0);
  });

  it.each([
    ['this realm', () => new TypeError('fetch failed', { cause: new Error('unexpected redirect') })],
    [
      'another realm',
      () => runInNewContext(`new TypeError('fetch failed', { cause: new Error('unexpected redirect') })`),
    ],
  ])('types the refusal of a fetch from %s by its shape, with no retry', async (_realm, refusal) => {
    let sent = 0;
    const transport = new OpenAITransport({
      apiKey: KEY,
      baseUrl: emulator().url,
      fetch: async () => {
        sent += 1;
        throw refusal();
      },
    });
    const error = await failureOf(transport.completeChatRaw(request));
    expect(error).toMatchObject({ kind: 'bad_reply', status: null, retryable: false });
    expect(error.message).toContain('redirects are refused');
    expect(sent).toBe(1);
  });

  it('refuses a redirect a given fetch hands back as a reply, naming its status and origin only', async () => {
    emulator().setFaults([
      { redirect: { status: 308, location: `${elsewhere.url}/chat/completions?token=x` } },
    ]);
    const transport = new OpenAITransport({
      apiKey: KEY,
      baseUrl: emulator().url,
      // A fetch of the caller's that answers redirects itself rather than failing them.
      fetch: (input, init) => fetch(input, { ...init, redirect: 'manual' }),
    });
    const error = await failureOf(transport.completeChatRaw(request));
    expect(error).toMatchObject({ kind: 'bad_reply', status: 308, retryable: false });
    expect(error.message).toContain(`redirects are refused (to ${elsewhere.url})`);
    expect(error.message).not.toContain('token=x');
    expect(elsewhere.requests).toHaveLength(0);
  });
});
