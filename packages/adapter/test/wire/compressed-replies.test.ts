// Issue 40, item 1: a reply that declared a content-length was read in one step with
// `response.text()`, but fetch undoes Content-Encoding and the declared length is the compressed
// one: a 65 KB gzip body was taken whole as a 64 MiB reply, past maxReplyBytes, and a 500's
// 65 KB gzip body read 64 MiB past the 64 KiB error cap. Every cap now counts the decoded bytes
// as they arrive. Each server below is a real loopback node:http server sending a body made
// with node:zlib that decodes to 64 MiB; each failure names its cap and how many decoded bytes
// were read, which is what memory is bounded by: the cap and one more read of the body.
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import {
  ChatAdapter,
  type ChatError,
  OpenAIClientTransport,
  type TransportRequest,
} from '../../src/index.js';
import {
  BOMB_DECODED_BYTES,
  type BombEncoding,
  bytesReadIn,
  compressedBomb,
  ONE_READ_BYTES,
  serveBomb,
  serveCompressed,
} from '../support/compressed-bomb.js';
import { failureOf } from '../support/failure-of.js';
import { closeLoopbackServers } from '../support/listen-on-loopback.js';
import { pricedAs } from '../support/priced-as.js';
import { WIRE_TRANSPORTS, type WireTransportCase } from '../support/wire-transports.js';

afterEach(closeLoopbackServers);

const KEY = 'wire-compressed-key-7a3e';
const MAX_REPLY_BYTES = 16 * 1024 * 1024;
const MAX_ERROR_BYTES = 64 * 1024;

const request: TransportRequest = {
  model: 'primary-flash',
  messages: [{ role: 'user', content: 'Summarise the build log.' }],
  tools: undefined,
  timeoutSeconds: 30,
  extraBody: {},
};

const transportTo = (wire: WireTransportCase, url: string, maxAttempts = 3) =>
  wire.make({ apiKey: KEY, baseUrl: url, maxAttempts, retryBackoffSeconds: 0.01 });

/** The failure names `cap` and read no more than the cap and one read past it, far short of the bomb. */
function expectStoppedAt(error: ChatError, cap: number, capText: string): void {
  expect(error.message).toContain(capText);
  const read = bytesReadIn(error.message);
  expect(read).toBeGreaterThan(cap);
  expect(read).toBeLessThanOrEqual(cap + ONE_READ_BYTES);
  expect(read).toBeLessThan(BOMB_DECODED_BYTES);
}

describe.each(WIRE_TRANSPORTS)('$name against compressed replies (issue 40.1)', (wire) => {
  describe('a compressed reply within the caps', () => {
    const reply = {
      id: 'chatcmpl-gz',
      object: 'chat.completion',
      model: 'primary-flash',
      choices: [{ index: 0, message: { role: 'assistant', content: 'Décodé: 🔒' }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 7, completion_tokens: 4, total_tokens: 11 },
    };

    it.each<BombEncoding>(['gzip', 'br', 'deflate', 'gzip, gzip'])(
      'reads a %s reply as it decodes',
      async (encoding) => {
        const url = await serveCompressed(JSON.stringify(reply), encoding, 'application/json');
        expect(await transportTo(wire, url).completeChatRaw(request)).toEqual(reply);
      },
    );

    it('reads a gzip event stream as it decodes', async () => {
      const chunk = { id: 'chatcmpl-gz', object: 'chat.completion.chunk', model: 'primary-flash' };
      const events = [
        { ...chunk, choices: [{ index: 0, delta: { role: 'assistant', content: 'Décodé' } }] },
        { ...chunk, choices: [{ index: 0, delta: { content: ': 🔒' }, finish_reason: 'stop' }] },
        { ...chunk, choices: [], usage: reply.usage },
      ];
      const body = `${events.map((event) => `data: ${JSON.stringify(event)}\n\n`).join('')}data: [DONE]\n\n`;
      const url = await serveCompressed(body, 'gzip', 'text/event-stream');
      const stream = new ChatAdapter(transportTo(wire, url)).stream({
        model: 'primary-flash',
        messages: request.messages,
      });
      for await (const _delta of stream) {
        // read to the end
      }
      expect((await stream.response).content).toBe('Décodé: 🔒');
    });
  });

  describe('a 200 whose small compressed body decodes past maxReplyBytes', () => {
    it.each<BombEncoding>(['gzip', 'br', 'deflate', 'gzip, gzip'])(
      'fails %s as bad_reply naming the 16 MiB cap, having read no more than the cap and one read',
      async (encoding) => {
        const server = await serveBomb({ encoding });
        expect(compressedBomb(encoding).byteLength).toBeLessThan(70_000);
        const error = await failureOf(transportTo(wire, server.url).completeChatRaw(request));
        expect(error).toMatchObject({ kind: 'bad_reply', status: 200, retryable: false });
        expectStoppedAt(error, MAX_REPLY_BYTES, 'the reply body passed the 16 MiB cap (maxReplyBytes)');
        expect(server.requests()).toBe(1);
      },
    );

    it('holds a configured maxReplyBytes the same way', async () => {
      const server = await serveBomb({ encoding: 'br' });
      const transport = wire.make({ apiKey: KEY, baseUrl: server.url, maxReplyBytes: 256 * 1024 });
      const error = await failureOf(transport.completeChatRaw(request));
      expect(error.kind).toBe('bad_reply');
      expectStoppedAt(error, 256 * 1024, 'passed the 256 KiB cap (maxReplyBytes)');
    });
  });

  describe('an error status whose compressed body decodes past the 64 KiB error cap', () => {
    it('types a 500 by its status and names the cap, having read no more than 64 KiB and one read', async () => {
      const server = await serveBomb({ encoding: 'gzip', status: 500 });
      const error = await failureOf(transportTo(wire, server.url, 1).completeChatRaw(request));
      expect(error).toMatchObject({ kind: 'server', status: 500, retryable: true });
      expectStoppedAt(error, MAX_ERROR_BYTES, 'the error body passed the 64 KiB cap');
    });

    it('types a 400 sent as `gzip, gzip` the same way, not retried', async () => {
      const server = await serveBomb({ encoding: 'gzip, gzip', status: 400 });
      const error = await failureOf(transportTo(wire, server.url).completeChatRaw(request));
      expect(error).toMatchObject({ kind: 'bad_request', status: 400, retryable: false });
      expectStoppedAt(error, MAX_ERROR_BYTES, 'the error body passed the 64 KiB cap');
      expect(server.requests()).toBe(1);
    });
  });

  describe('the model listing', () => {
    it('fails a deflate listing that decodes past the cap as bad_reply', async () => {
      const server = await serveBomb({ encoding: 'deflate' });
      const error = await failureOf(transportTo(wire, server.url).listModels());
      expect(error).toMatchObject({ kind: 'bad_reply', status: 200 });
      expectStoppedAt(error, MAX_REPLY_BYTES, 'the reply body passed the 16 MiB cap (maxReplyBytes)');
    });
  });

  describe('a streamed call', () => {
    const adapterOn = (url: string) =>
      new ChatAdapter(transportTo(wire, url), { endpoint: pricedAs('primary-flash') });
    const streamed = { model: 'primary-flash', messages: request.messages };

    it('fails a JSON reply in place of events (br) that decodes past the cap as bad_reply', async () => {
      const server = await serveBomb({ encoding: 'br' });
      const stream = adapterOn(server.url).stream(streamed);
      const error = await failureOf(stream.response);
      expect(error).toMatchObject({ kind: 'bad_reply', status: 200 });
      expectStoppedAt(error, MAX_REPLY_BYTES, 'the reply body passed the 16 MiB cap (maxReplyBytes)');
      expect(server.requests()).toBe(1);
    });

    it('fails a gzip event stream that decodes past the cap as bad_reply', async () => {
      const server = await serveBomb({
        encoding: 'gzip',
        contentType: 'text/event-stream',
        fill: ': keep-alive\n',
      });
      const stream = adapterOn(server.url).stream(streamed);
      const error = await failureOf(stream.response);
      expect(error).toMatchObject({ kind: 'bad_reply', status: 200 });
      expectStoppedAt(error, MAX_REPLY_BYTES, 'byte cap (maxReplyBytes)');
    });
  });
});

describe('OpenAIClientTransport against compressed replies (issue 40.1)', () => {
  const clientTo = (url: string, maxRetries = 0) => new OpenAI({ apiKey: KEY, baseURL: url, maxRetries });

  it("reads a 200 through the caller's client under the same decoded cap", async () => {
    const server = await serveBomb({ encoding: 'gzip' });
    const error = await failureOf(new OpenAIClientTransport(clientTo(server.url)).completeChatRaw(request));
    expect(error).toMatchObject({ kind: 'bad_reply', status: 200 });
    expectStoppedAt(error, MAX_REPLY_BYTES, 'the reply body passed the 16 MiB cap (maxReplyBytes)');
  });

  // The client reads an error body itself (`text()`): the transport hands it one cut at the cap.
  it.each<[BombEncoding, number, string]>([
    ['br', 500, 'server'],
    ['gzip, gzip', 400, 'bad_request'],
  ])('cuts a %s error body (%i) the client reads at the 64 KiB cap', async (encoding, status, kind) => {
    const server = await serveBomb({ encoding, status });
    const error = await failureOf(new OpenAIClientTransport(clientTo(server.url)).completeChatRaw(request));
    expect(error).toMatchObject({ kind, status });
    expectStoppedAt(error, MAX_ERROR_BYTES, 'the error body passed the 64 KiB cap');
  });

  it("keeps the client's own retries, each error body cut the same way", async () => {
    const server = await serveBomb({ encoding: 'gzip', status: 503 });
    const client = clientTo(server.url, 2);
    const error = await failureOf(new OpenAIClientTransport(client).listModels());
    expect(error).toMatchObject({ kind: 'server', status: 503 });
    expectStoppedAt(error, MAX_ERROR_BYTES, 'the error body passed the 64 KiB cap');
    expect(server.requests()).toBe(3);
  }, 30_000);
});
