import { request as httpRequest, type IncomingMessage } from 'node:http';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { postChat, user } from '../../test/support/test-support.js';
import { type Emulator, startEmulator } from '../server/start-emulator.js';

const chat = { model: 'primary-flash', messages: [user('Status of the nightly build?')] };

/** POSTs `chat` with node:http, resolving at the headers; the body is left to the test. */
function postRaw(url: string, body: unknown = chat): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest(`${url}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
    });
    outgoing.once('response', resolve);
    outgoing.once('error', reject);
    outgoing.end(JSON.stringify(body));
  });
}

/** Reads up to `limit` bytes of `response` (then destroys it); how the body ended, and when pieces came. */
function readSome(
  response: IncomingMessage,
  limit: number,
): Promise<{ text: string; ended: 'end' | 'limit' | 'error'; arrivals: number[] }> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    const arrivals: number[] = [];
    let size = 0;
    const finish = (ended: 'end' | 'limit' | 'error') =>
      resolve({ text: Buffer.concat(chunks).toString('utf8'), ended, arrivals });
    response.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      arrivals.push(Date.now());
      size += chunk.length;
      if (size >= limit) {
        finish('limit');
        response.destroy();
      }
    });
    response.once('end', () => finish('end'));
    response.once('error', () => finish('error'));
    response.once('aborted', () => finish('error'));
  });
}

describe('fault effects', () => {
  let emulator: Emulator;
  beforeEach(async () => {
    emulator = await startEmulator();
  });
  afterEach(async () => {
    await emulator.close();
  });

  describe('an endless body', () => {
    it('starts a 200 like a chat reply and never ends', async () => {
      emulator.setFaults([{ endlessBody: true }]);
      const response = await postRaw(emulator.url);
      expect(response.statusCode).toBe(200);
      expect(response.headers['content-type']).toBe('application/json');
      expect(response.headers['content-length']).toBeUndefined();
      const read = await readSome(response, 4 * 1024 * 1024);
      expect(read.ended).toBe('limit');
      expect(read.text.startsWith('{"id":"chatcmpl-endless1","object":"chat.completion"')).toBe(true);
      expect(read.text).toContain('"content":"endless filler text');
    });

    it('starts an error status like its JSON error and never ends', async () => {
      emulator.setFaults([{ endlessBody: true, status: 500 }]);
      const response = await postRaw(emulator.url);
      expect(response.statusCode).toBe(500);
      const read = await readSome(response, 1024 * 1024);
      expect(read.ended).toBe('limit');
      expect(read.text.startsWith('{"error":{"message":"The server had an error')).toBe(true);
    });

    it('trickles a few bytes at a time when trickleMs is set', async () => {
      emulator.setFaults([{ endlessBody: true, status: 429, retryAfter: 1, trickleMs: 20, trickleBytes: 4 }]);
      const response = await postRaw(emulator.url);
      expect(response.statusCode).toBe(429);
      expect(response.headers['retry-after']).toBe('1');
      const prefix =
        '{"error":{"message":"Rate limit reached for requests. Please retry after a short wait. ';
      const read = await readSome(response, prefix.length + 12);
      expect(read.ended).toBe('limit');
      expect(read.text.startsWith(prefix.slice(0, read.text.length))).toBe(true);
      expect(read.arrivals.length).toBeGreaterThan(5);
    });

    it('stops writing when the emulator closes', async () => {
      emulator.setFaults([{ endlessBody: true }]);
      const response = await postRaw(emulator.url);
      const reading = readSome(response, Number.POSITIVE_INFINITY);
      await emulator.close();
      expect((await reading).ended).not.toBe('limit');
    });
  });

  describe('a trickled body', () => {
    it('delivers the whole normal answer in pieces', async () => {
      emulator.setFaults([{ trickleMs: 1, trickleBytes: 64 }]);
      const response = await postRaw(emulator.url);
      const read = await readSome(response, Number.POSITIVE_INFINITY);
      expect(read.ended).toBe('end');
      expect(read.arrivals.length).toBeGreaterThan(3);
      expect(JSON.parse(read.text).choices[0].message.content).toMatch(/^Answer to: Status/);
    });
  });

  describe('whitespace and keep-alive newlines', () => {
    it('answers 200 with a body of only whitespace', async () => {
      emulator.setFaults([{ whitespaceBody: true }]);
      const reply = await postChat(emulator.url, chat);
      expect(reply.status).toBe(200);
      expect(reply.headers.get('content-type')).toBe('application/json');
      expect(reply.text).toBe('\n\n \n');
    });

    it('sends keep-alive newlines before the normal JSON answer', async () => {
      emulator.setFaults([{ keepAliveNewlines: 3, keepAliveMs: 30 }]);
      const response = await postRaw(emulator.url);
      expect(response.statusCode).toBe(200);
      const read = await readSome(response, Number.POSITIVE_INFINITY);
      expect(read.ended).toBe('end');
      expect(read.text.startsWith('\n\n\n{"id":"chatcmpl-')).toBe(true);
      expect(JSON.parse(read.text).choices[0].message.content).toMatch(/^Answer to: Status/);
      expect((read.arrivals.at(-1) ?? 0) - (read.arrivals[0] ?? 0)).toBeGreaterThanOrEqual(50);
    });
  });

  describe('an error inside a 200 body', () => {
    it('carries only the error object by default', async () => {
      emulator.setFaults([{ errorInBody: { code: 429 } }]);
      const reply = await postChat(emulator.url, chat);
      expect(reply.status).toBe(200);
      expect(Object.keys(reply.json)).toEqual(['error']);
      expect(reply.json.error).toMatchObject({ code: 429, message: expect.stringMatching(/Rate limit/) });
      expect(reply.json.error.metadata.raw).toMatch(/upstream provider/);
    });

    it('carries choices beside the error when asked', async () => {
      emulator.setFaults([
        { errorInBody: { code: 502, message: 'Provider returned error', raw: 'boom', withChoices: true } },
      ]);
      const reply = await postChat(emulator.url, chat);
      expect(reply.status).toBe(200);
      expect(reply.json.choices).toEqual([
        { index: 0, message: { role: 'assistant', content: '' }, finish_reason: 'error' },
      ]);
      expect(reply.json.model).toBe('primary-flash');
      expect(reply.json.error).toEqual({
        code: 502,
        message: 'Provider returned error',
        metadata: { raw: 'boom', provider_name: 'upstream' },
      });
    });
  });

  describe('statuses', () => {
    it('answers 402 with an insufficient balance error', async () => {
      emulator.setFaults([{ status: 402 }]);
      const reply = await postChat(emulator.url, chat);
      expect(reply.status).toBe(402);
      expect(reply.json.error).toMatchObject({
        code: 'insufficient_balance',
        message: expect.stringMatching(/^Insufficient Balance/),
      });
    });

    it('sends a huge retry-after as written', async () => {
      emulator.setFaults([
        { status: 429, retryAfter: 86_400, times: 1 },
        { status: 429, retryAfter: 2 ** 31 + 5, retryAfterMs: 2 ** 32, times: 1 },
        { status: 503, retryAfter: 'Wed, 21 Oct 2065 07:28:00 GMT', times: 1 },
      ]);
      expect((await postChat(emulator.url, chat)).headers.get('retry-after')).toBe('86400');
      const overflow = await postChat(emulator.url, chat);
      expect(overflow.headers.get('retry-after')).toBe('2147483653');
      expect(overflow.headers.get('retry-after-ms')).toBe('4294967296');
      expect((await postChat(emulator.url, chat)).headers.get('retry-after')).toBe(
        'Wed, 21 Oct 2065 07:28:00 GMT',
      );
    });

    it('redirects to another origin', async () => {
      emulator.setFaults([
        { redirect: { location: 'http://127.0.0.2:9/chat/completions' }, times: 1 },
        { redirect: { status: 301, location: 'http://127.0.0.2:9/x' } },
      ]);
      const first = await postRaw(emulator.url);
      expect(first.statusCode).toBe(307);
      expect(first.headers.location).toBe('http://127.0.0.2:9/chat/completions');
      first.resume();
      const second = await postRaw(emulator.url);
      expect(second.statusCode).toBe(301);
      second.resume();
    });
  });

  describe('model rejections', () => {
    it.each([
      [
        'listing',
        "Model 'primary-flash' is not supported. Supported API model names: primary-flash, primary-v4-pro",
        'model_not_found',
      ],
      [
        'but-you-passed',
        'The supported API model names are primary-flash or primary-v4-pro, but you passed primary-flash.',
        'invalid_request_error',
      ],
      ['not-exist', 'Model Not Exist', 'invalid_request_error'],
    ] as const)('answers 400 in the %s wording', async (wording, message, code) => {
      emulator.setFaults([{ modelRejected: wording }]);
      const reply = await postChat(emulator.url, chat);
      expect(reply.status).toBe(400);
      expect(reply.json.error).toMatchObject({ message, code, param: 'model' });
    });

    it('rejects unknown models in the wording the emulator option picks', async () => {
      const other = await startEmulator({ modelRejection: 'but-you-passed' });
      try {
        const reply = await postChat(other.url, { ...chat, model: 'primary-x' });
        expect(reply.json.error.message).toBe(
          'The supported API model names are primary-flash or primary-v4-pro, but you passed primary-x.',
        );
      } finally {
        await other.close();
      }
    });
  });

  describe('a deep error body', () => {
    it('nests the error as deep as asked, with the given status', async () => {
      emulator.setFaults([{ deepErrorBody: 100_000, status: 503 }]);
      const reply = await postChat(emulator.url, chat);
      expect(reply.status).toBe(503);
      expect(reply.text.startsWith('{"error":{"error":{"error":')).toBe(true);
      expect(reply.text.split('{"error":').length - 1).toBe(100_000);
      expect(reply.text).toContain(
        '{"error":{"message":"The server is overloaded. Please try again later.","code":503}}',
      );
      expect(reply.text.endsWith(`503}${'}'.repeat(100_000)}`)).toBe(true);
    });
  });

  describe('a cut-off body', () => {
    it('announces the whole length, sends half and drops the connection', async () => {
      emulator.setFaults([{ cutOff: true }]);
      const response = await postRaw(emulator.url);
      expect(response.statusCode).toBe(200);
      const announced = Number(response.headers['content-length']);
      const read = await readSome(response, Number.POSITIVE_INFINITY);
      expect(read.ended).toBe('error');
      expect(Buffer.byteLength(read.text)).toBe(Math.floor(announced / 2));
      expect(read.text.startsWith('{"id":"chatcmpl-')).toBe(true);
    });

    it('sends only as many bytes as cutOffAfterBytes says, none at all for 0', async () => {
      for (const bytes of [0, 10]) {
        emulator.setFaults([{ cutOffAfterBytes: bytes }]);
        const response = await postRaw(emulator.url);
        expect(response.statusCode).toBe(200);
        expect(Number(response.headers['content-length'])).toBeGreaterThan(100);
        const read = await readSome(response, Number.POSITIVE_INFINITY);
        expect(read.ended).toBe('error');
        expect(Buffer.byteLength(read.text)).toBe(bytes);
      }
    });

    it('makes fetch fail while reading the body', async () => {
      emulator.setFaults([{ cutOff: true, status: 500 }]);
      await expect(postChat(emulator.url, chat)).rejects.toThrow(TypeError);
    });
  });

  describe('requests in flight', () => {
    it('counts requests in flight and their peak, and reset() restarts the peak', async () => {
      emulator.setFaults([{ requests: [1, 2], delayMs: 60_000 }]);
      const pending = [postRaw(emulator.url).catch(() => null), postRaw(emulator.url).catch(() => null)];
      while (emulator.inFlight < 2) await new Promise((resolve) => setTimeout(resolve, 5));
      expect((await postChat(emulator.url, chat)).status).toBe(200);
      expect(emulator.inFlight).toBe(2);
      expect(emulator.peakInFlight).toBe(3);
      emulator.reset();
      expect(emulator.peakInFlight).toBe(2);
      await emulator.close();
      await Promise.all(pending);
      expect(emulator.inFlight).toBe(0);
    });
  });
});
