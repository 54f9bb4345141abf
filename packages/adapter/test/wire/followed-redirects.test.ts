import { type Emulator, startEmulator } from '@switchboard/emulator';
import OpenAI from 'openai';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { OpenAIClientTransport, OpenAITransport } from '../../src/index.js';
import { failureOf } from '../support/failure-of.js';
import { chatRequests, transportRequest } from '../support/transport-to.js';

// Issue 40.13: a caller's fetch that follows redirects (ignoring the `redirect: 'error'` it is
// given) re-posted the prompt to another origin, and that origin's reply was used unnoticed. The
// transport cannot stop a fetch it does not own from following; it refuses what comes back.

const KEY = 'followed-redirect-key-5c1a';
const request = transportRequest('Did the nightly build pass?', 10);

/** Where the transport sends its requests, and another origin a redirect points at. */
let home: Emulator;
let elsewhere: Emulator;
beforeAll(async () => {
  [home, elsewhere] = await Promise.all([startEmulator({ key: KEY }), startEmulator({})]);
});
afterAll(async () => {
  await Promise.all([home.close(), elsewhere.close()]);
});
afterEach(() => {
  home.reset();
  elsewhere.reset();
});

const redirectTo = (status: 301 | 302 | 303 | 307 | 308, location: string) =>
  home.setFaults([{ redirect: { status, location }, times: 1 }]);

/** A fetch of the caller's that follows redirects whatever it is asked. */
const following: typeof fetch = (input, init) => fetch(input, { ...init, redirect: 'follow' });

/** A fetch of the caller's that follows a redirect by hand: its reply is not marked `redirected`. */
const followingByHand: typeof fetch = async (input, init) => {
  const first = await fetch(input, { ...init, redirect: 'manual' });
  const location = first.headers.get('location');
  if (first.status < 300 || first.status >= 400 || location === null) return first;
  await first.body?.cancel();
  return fetch(new URL(location, String(input)), { ...init, redirect: 'manual' });
};

const transport = (fetchOf: typeof fetch) =>
  new OpenAITransport({ apiKey: KEY, baseUrl: home.url, fetch: fetchOf, retryBackoffSeconds: 0.01 });

describe('FetchTransport with a given fetch that follows redirects (issue 40.13)', () => {
  it.each([307, 308, 301, 302, 303] as const)(
    'refuses the reply a followed %i to another origin brought: bad_reply, not retried, its origin named',
    async (status) => {
      redirectTo(status, `${elsewhere.url}/chat/completions?token=x`);
      const error = await failureOf(transport(following).completeChatRaw(request));
      expect(error).toMatchObject({ kind: 'bad_reply', status: null, retryable: false });
      expect(error.message).toContain(
        `followed a redirect to ${new URL(elsewhere.url).origin}, so the request went there too; its reply is refused`,
      );
      expect(error.message).not.toContain('token=x');
      // One request each: the transport (3 attempts) did not try again.
      expect(chatRequests(home)).toBe(1);
      expect(elsewhere.requests).toHaveLength(1);
    },
  );

  it('refuses a redirect followed by hand, by the reply’s url of another origin', async () => {
    redirectTo(307, `${elsewhere.url}/chat/completions`);
    const error = await failureOf(transport(followingByHand).completeChatRaw(request));
    expect(error).toMatchObject({ kind: 'bad_reply', retryable: false });
    expect(error.message).toContain(`followed a redirect to ${new URL(elsewhere.url).origin}`);
    expect(chatRequests(home)).toBe(1);
    expect(elsewhere.requests).toHaveLength(1);
  });

  it('refuses a followed redirect within the same origin too, as every redirect is refused', async () => {
    redirectTo(307, `${home.url}/chat/completions?again=1`);
    const error = await failureOf(transport(following).completeChatRaw(request));
    expect(error).toMatchObject({ kind: 'bad_reply', retryable: false });
    expect(error.message).toContain(`followed a redirect to ${new URL(home.url).origin}`);
    // The redirect and the request it led to; no retry after.
    expect(home.requests.map((recorded) => recorded.path)).toEqual([
      '/chat/completions',
      '/chat/completions?again=1',
    ]);
  });

  it('still answers through a given fetch when nothing redirects', async () => {
    const reply = await transport(following).completeChatRaw(request);
    expect(reply).toHaveProperty('choices');
    expect(chatRequests(home)).toBe(1);
  });
});

describe('OpenAIClientTransport over a client whose fetch follows redirects (issue 40.13)', () => {
  it('refuses the reply a followed 307 to another origin brought, naming the origin', async () => {
    redirectTo(307, `${elsewhere.url}/chat/completions`);
    const client = new OpenAI({ apiKey: KEY, baseURL: home.url, maxRetries: 0 });
    const error = await failureOf(new OpenAIClientTransport(client).completeChatRaw(request));
    expect(error).toMatchObject({ kind: 'bad_reply', retryable: false });
    expect(error.message).toContain(`followed a redirect to ${new URL(elsewhere.url).origin}`);
    expect(chatRequests(home)).toBe(1);
    expect(elsewhere.requests).toHaveLength(1);
  });
});
