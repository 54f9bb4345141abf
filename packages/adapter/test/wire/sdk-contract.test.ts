// The `openai` SDK stays the reference for the wire. Every request shape goes once through
// ChatAdapter over each wire transport (FetchTransport: requests built with fetch directly;
// NodeTransport: with node:http) and once through the real SDK's `chat.completions.create` with
// the same fields, to a recording loopback server: the same method, path, credentials, accept
// and user-agent headers and JSON body, byte for byte.
import { createServer, type IncomingMessage } from 'node:http';
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { ChatAdapter, type CompleteRequest } from '../../src/index.js';
import { closeLoopbackServers, listenOnLoopback } from '../support/listen-on-loopback.js';
import { WIRE_TRANSPORTS } from '../support/wire-transports.js';

const KEY = 'sk-contract-test-key';

interface Recorded {
  readonly method: string;
  readonly path: string;
  readonly authorization: string | undefined;
  readonly contentType: string | undefined;
  readonly accept: string | undefined;
  readonly userAgent: string | undefined;
  readonly body: string;
}

const REPLY = {
  id: 'chatcmpl-contract',
  object: 'chat.completion',
  created: 1,
  model: 'primary-flash',
  choices: [{ index: 0, message: { role: 'assistant', content: '{"ok": true}' }, finish_reason: 'stop' }],
  usage: { prompt_tokens: 5, completion_tokens: 3, total_tokens: 8 },
};

async function bodyOf(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** A server that records each request and answers a whole reply, or a short stream when asked. */
async function recordingServer(prefix: string): Promise<{ url: string; recorded: Recorded[] }> {
  const recorded: Recorded[] = [];
  const server = createServer(async (request, response) => {
    const body = await bodyOf(request);
    recorded.push({
      method: request.method ?? '',
      path: request.url ?? '',
      authorization: request.headers.authorization,
      contentType: request.headers['content-type'],
      accept: request.headers.accept,
      userAgent: request.headers['user-agent'],
      body,
    });
    if (request.method === 'GET') {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ object: 'list', data: [{ id: 'primary-flash', object: 'model' }] }));
      return;
    }
    if (body.includes('"stream":true')) {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      const chunk = { ...REPLY, object: 'chat.completion.chunk', usage: undefined };
      const delta = { index: 0, delta: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' };
      response.write(`data: ${JSON.stringify({ ...chunk, choices: [delta] })}\n\n`);
      response.write(`data: ${JSON.stringify({ ...chunk, choices: [], usage: REPLY.usage })}\n\n`);
      response.end('data: [DONE]\n\n');
      return;
    }
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify(REPLY));
  });
  return { url: `${await listenOnLoopback(server)}${prefix}`, recorded };
}

const messages = [
  { role: 'system' as const, content: 'You review diffs.' },
  { role: 'user' as const, content: 'Is `eval(input)` safe here? Answer in JSON — "é", 🔒, \u2028.' },
];
const tools = [
  {
    type: 'function' as const,
    function: {
      name: 'grep',
      description: 'Search the repository',
      parameters: { type: 'object', properties: { pattern: { type: 'string' } }, required: ['pattern'] },
    },
  },
];
const thinkingOff = { thinking: { type: 'disabled' } };

/**
 * Each shape: the adapter's request, its options, and the SDK's parameters with the same fields,
 * in the order the adapter writes them (model, messages, temperature, tools, then the extras).
 */
const SHAPES: ReadonlyArray<{
  readonly name: string;
  readonly request: CompleteRequest;
  readonly thinking?: boolean;
  readonly bounded?: number;
  readonly stream?: boolean;
  readonly sdk: Record<string, unknown>;
}> = [
  {
    name: 'plain',
    request: { model: 'primary-flash', messages },
    sdk: { model: 'primary-flash', messages, temperature: 0, ...thinkingOff },
  },
  {
    name: 'tools',
    request: { model: 'primary-flash', messages, tools },
    sdk: { model: 'primary-flash', messages, temperature: 0, tools, ...thinkingOff },
  },
  {
    name: 'JSON mode',
    request: { model: 'primary-flash', messages, jsonObject: true },
    sdk: {
      model: 'primary-flash',
      messages,
      temperature: 0,
      ...thinkingOff,
      response_format: { type: 'json_object' },
    },
  },
  {
    name: 'logprobs',
    request: { model: 'primary-flash', messages, logprobs: true },
    sdk: {
      model: 'primary-flash',
      messages,
      temperature: 0,
      ...thinkingOff,
      logprobs: true,
      top_logprobs: 1,
    },
  },
  {
    name: 'temperature',
    request: { model: 'primary-flash', messages, temperature: 0.7 },
    sdk: { model: 'primary-flash', messages, temperature: 0.7, ...thinkingOff },
  },
  {
    name: 'bounded max_tokens',
    request: { model: 'primary-flash', messages },
    bounded: 64,
    sdk: { model: 'primary-flash', messages, temperature: 0, ...thinkingOff, max_tokens: 64 },
  },
  {
    name: 'thinking on',
    request: { model: 'primary-pro', messages, maxTokens: 512 },
    thinking: true,
    sdk: { model: 'primary-pro', messages, temperature: 0, max_tokens: 512 },
  },
  {
    name: 'a stream',
    request: { model: 'primary-flash', messages, tools, maxTokens: 100 },
    stream: true,
    sdk: {
      model: 'primary-flash',
      messages,
      temperature: 0,
      tools,
      ...thinkingOff,
      max_tokens: 100,
      stream: true,
      stream_options: { include_usage: true },
    },
  },
];

afterEach(closeLoopbackServers);

describe.each(WIRE_TRANSPORTS)('$name against the openai SDK', (wire) => {
  describe.each([
    ['the primary (no version path)', ''],
    ['the gateway (/api/v1)', '/api/v1'],
  ])('%s', (_, prefix) => {
    it.each(SHAPES)('sends the same request as the SDK: $name', async (shape) => {
      const { url, recorded } = await recordingServer(prefix);
      const base = new ChatAdapter(wire.make({ apiKey: KEY, baseUrl: url }), {
        disableThinking: shape.thinking !== true,
      });
      const adapter = shape.bounded === undefined ? base : base.bounded(shape.bounded);
      if (shape.stream) await adapter.stream(shape.request).response;
      else await adapter.complete(shape.request);

      const sdk = new OpenAI({ apiKey: KEY, baseURL: url, maxRetries: 0 });
      const params = shape.sdk as unknown as OpenAI.ChatCompletionCreateParams;
      if (shape.stream) {
        for await (const _chunk of (await sdk.chat.completions.create(
          params as OpenAI.ChatCompletionCreateParamsStreaming,
        )) as AsyncIterable<unknown>) {
          // read to the end
        }
      } else await sdk.chat.completions.create(params as OpenAI.ChatCompletionCreateParamsNonStreaming);

      expect(recorded).toHaveLength(2);
      const [ours, theirs] = recorded as [Recorded, Recorded];
      expect(ours.method).toBe('POST');
      expect(ours.path).toBe(`${prefix}/chat/completions`);
      expect(ours.path).toBe(theirs.path);
      expect(ours.method).toBe(theirs.method);
      expect(ours.authorization).toBe(`Bearer ${KEY}`);
      expect(ours.authorization).toBe(theirs.authorization);
      expect(ours.contentType).toBe(theirs.contentType);
      expect(ours.accept).toBe(theirs.accept);
      expect(ours.userAgent).toBe(theirs.userAgent);
      expect(JSON.parse(ours.body)).toEqual(JSON.parse(theirs.body));
      expect(ours.body).toBe(theirs.body);
    });

    it('lists models with the same request as the SDK', async () => {
      const { url, recorded } = await recordingServer(prefix);
      const ids = await wire.make({ apiKey: KEY, baseUrl: url }).listModels();
      expect(ids).toEqual(['primary-flash']);
      const sdk = new OpenAI({ apiKey: KEY, baseURL: url, maxRetries: 0 });
      await sdk.models.list();
      const [ours, theirs] = recorded as [Recorded, Recorded];
      expect(ours).toMatchObject({ method: 'GET', path: `${prefix}/models`, body: '' });
      expect({ ...ours }).toEqual({ ...theirs, contentType: ours.contentType });
    });
  });
});
