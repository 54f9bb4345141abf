import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postChat, postJson, user } from '../../test/support/test-support.js';
import { MAX_JSON_DEPTH } from '../http/read-body.js';
import { type Emulator, startEmulator } from './start-emulator.js';

const chat = { model: 'primary-flash', messages: [user('Status of the nightly build?')] };
const ODD_VALUES: unknown[] = [
  null,
  true,
  0,
  -1,
  1.5,
  1e308,
  '',
  'x',
  'x'.repeat(5000),
  [],
  [null],
  [1, 'a', {}],
  {},
  { type: 5 },
  { role: 'user', content: {} },
  { __proto__: { polluted: true } },
];
const TOP_FIELDS = [
  'model',
  'messages',
  'thinking',
  'reasoning',
  'tools',
  'tool_choice',
  'temperature',
  'response_format',
  'logprobs',
  'top_logprobs',
  'max_tokens',
  'max_completion_tokens',
  'stream',
];
const MESSAGE_FIELDS = [
  'role',
  'content',
  'tool_calls',
  'tool_call_id',
  'reasoning_content',
  'reasoning_details',
];

/** Sends a request with one header of `size` bytes; resolves to the status. */
function sendHugeHeader(url: string, size: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest(`${url}/models`, { headers: { 'x-padding': 'a'.repeat(size) } });
    outgoing.once('response', (response) => {
      response.resume();
      resolve(response.statusCode ?? 0);
    });
    outgoing.once('error', reject);
    outgoing.end();
  });
}

describe.each(['primary', 'gateway'] as const)('hostile input to the %s flavour', (flavor) => {
  let emulator: Emulator;
  beforeAll(async () => {
    emulator = await startEmulator({ flavor, maxRequestBytes: 512 * 1024, maxRecordedRequests: 5 });
  });
  afterAll(async () => {
    await emulator.close();
  });

  it('answers a body past the cap with a 413 JSON error', async () => {
    const reply = await postChat(emulator.url, { ...chat, padding: 'p'.repeat(520 * 1024) });
    expect(reply.status).toBe(413);
    expect(reply.json.error).toMatchObject({
      code: 'request_too_large',
      message: 'Payload Too Large: the request body is larger than 524288 bytes',
    });
    expect((await postChat(emulator.url, chat)).status).toBe(200);
  });

  it('keeps only the latest requests while their numbers keep counting', async () => {
    emulator.reset();
    for (let index = 0; index < 8; index += 1) await postChat(emulator.url, chat);
    expect(emulator.requests.map((recorded) => recorded.number)).toEqual([4, 5, 6, 7, 8]);
  });

  it('answers a long prompt of short words (0.5 MiB of "a ") with a 200, counting every token', async () => {
    const words = 250 * 1024;
    const reply = await postChat(emulator.url, { ...chat, messages: [user('a '.repeat(words))] });
    expect(reply.status).toBe(200);
    // The words, plus the role line of the message (see promptTokens).
    expect(reply.json.usage.prompt_tokens).toBeGreaterThanOrEqual(words);
  });

  it('caps the requests it keeps by the bytes of their bodies too, keeping the latest whatever its size', async () => {
    const small = await startEmulator({ flavor, maxRecordedBytes: 10 * 1024 });
    try {
      const padded = (bytes: number) => ({ ...chat, padding: 'p'.repeat(bytes) });
      for (let index = 0; index < 6; index += 1) await postChat(small.url, padded(3 * 1024));
      // Each body is a little over 3 KiB: three fit in 10 KiB, the oldest three are forgotten.
      expect(small.requests.map((recorded) => recorded.number)).toEqual([4, 5, 6]);
      await postChat(small.url, padded(20 * 1024));
      expect(small.requests.map((recorded) => recorded.number)).toEqual([7]);
      await postChat(small.url, padded(1024));
      expect(small.requests.map((recorded) => recorded.number)).toEqual([8]);
      await postChat(small.url, padded(1024));
      expect(small.requests.map((recorded) => recorded.number)).toEqual([8, 9]);
    } finally {
      await small.close();
    }
  });

  it('caps the answer-length header', async () => {
    for (const value of ['200001', '1e3', '-5', '0', 'lots', '99999999999']) {
      const reply = await postChat(emulator.url, chat, { 'x-emulator-answer-tokens': value });
      expect(reply.status, value).toBe(400);
      expect(reply.json.error.message).toBe(
        "Header 'x-emulator-answer-tokens' must be an integer from 1 to 200000",
      );
    }
    const fine = await postChat(emulator.url, chat, { 'x-emulator-answer-tokens': '40' });
    expect(fine.status).toBe(200);
  });

  it('answers invalid and non-object JSON bodies with a 400', async () => {
    for (const body of ['{"model":', 'null', '[]', '"text"', '42', '{"model": "primary-flash", }']) {
      const reply = await postJson(emulator.url, '/chat/completions', body);
      expect(reply.status, body).toBe(400);
      expect(reply.json.error.param).toBe('body');
    }
  });

  it(`answers JSON nested deeper than ${MAX_JSON_DEPTH} levels with a 400, even 100k levels`, async () => {
    for (const depth of [MAX_JSON_DEPTH + 1, 100_000]) {
      const deep = `${'['.repeat(depth)}${']'.repeat(depth)}`;
      const body = `{"model":"primary-flash","messages":[{"role":"user","content":"hi"}],"tools":${deep}}`;
      const reply = await postJson(emulator.url, '/chat/completions', body);
      expect(reply.status).toBe(400);
      expect(reply.json.error.message).toContain(`nests deeper than ${MAX_JSON_DEPTH} levels`);
    }
    const shallow = { ...chat, metadata: JSON.parse(`${'['.repeat(100)}${']'.repeat(100)}`) };
    expect((await postChat(emulator.url, shallow)).status).toBe(200);
  });

  it('answers a field of the wrong type with a 4xx, never a 5xx', async () => {
    const statuses = new Set<number>();
    for (const field of TOP_FIELDS) {
      for (const value of ODD_VALUES) {
        const reply = await postChat(emulator.url, { ...chat, [field]: value });
        statuses.add(reply.status);
        expect(reply.status, `${field}: ${JSON.stringify(value)?.slice(0, 40)}`).toBeLessThan(500);
      }
    }
    expect(statuses.has(400)).toBe(true);
  }, 120_000);

  it('answers a message field of the wrong type with a 4xx, never a 5xx', async () => {
    const assistant = {
      role: 'assistant',
      content: null,
      reasoning_content: 'thought',
      reasoning_details: [{ type: 'reasoning.text', text: 'thought' }],
      tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: '{}' } }],
    };
    const tool = { role: 'tool', tool_call_id: 'c1', content: 'done' };
    for (const field of MESSAGE_FIELDS) {
      for (const value of ODD_VALUES) {
        for (const index of [0, 1, 2]) {
          const messages: Record<string, unknown>[] = [user('hi'), assistant, tool];
          messages[index] = { ...messages[index], [field]: value };
          const reply = await postChat(emulator.url, { ...chat, messages });
          expect(
            reply.status,
            `messages[${index}].${field}: ${JSON.stringify(value)?.slice(0, 40)}`,
          ).toBeLessThan(500);
        }
      }
    }
  }, 120_000);

  it('answers a huge header with 431 from the HTTP layer', async () => {
    expect(await sendHugeHeader(emulator.url, 64 * 1024)).toBe(431);
    expect((await postChat(emulator.url, chat)).status).toBe(200);
  });
});
