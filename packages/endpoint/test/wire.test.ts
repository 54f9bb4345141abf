import {
  ChatAdapter,
  type ChatMessage,
  ModelRejectedError,
  type ToolSchema,
  toAssistantMessage,
} from '@switchboard/adapter';
import { type Emulator, type EmulatorOptions, startEmulator } from '@switchboard/emulator';
import { costOf, priceOf } from '@switchboard/prices';
import { afterEach, describe, expect, it } from 'vitest';
import { resolveChatEndpoint, type SwitchboardConfig } from '../src/index.js';
import { failureOf } from './support/failure-of.js';

// The resolved client, end to end: resolveChatEndpoint builds a ChatAdapter over an OpenAITransport
// (resolution rules 4, 5, 6, 8), and every call below crosses a real loopback socket to the emulator.

const KEY = 'wire-test-key-e04f';
const question: ChatMessage[] = [{ role: 'user', content: 'Is the release branch ready to tag?' }];
const grepTool: ToolSchema = {
  type: 'function',
  function: {
    name: 'grep_repository',
    description: 'Searches the repository for a pattern.',
    parameters: { type: 'object', properties: { pattern: { type: 'string' } }, required: ['pattern'] },
  },
};

const running: Emulator[] = [];

afterEach(async () => {
  await Promise.all(running.splice(0).map((emulator) => emulator.close()));
});

async function start(options: EmulatorOptions = {}): Promise<Emulator> {
  const emulator = await startEmulator({ key: KEY, ...options });
  running.push(emulator);
  return emulator;
}

/** Resolves with a frozen environment and expects the client to be a ChatAdapter. */
function resolveAdapter(config: SwitchboardConfig, env: Record<string, string | undefined>) {
  const resolved = resolveChatEndpoint(config, { env: Object.freeze({ ...env }) });
  if (resolved === null) throw new Error('expected a resolved endpoint, got null');
  expect(resolved.client).toBeInstanceOf(ChatAdapter);
  return { ...resolved, adapter: resolved.client as ChatAdapter };
}

/** The primary route (rule 5) pointed at `baseUrl`. */
function primaryRoute(baseUrl: string, config: SwitchboardConfig = {}) {
  return resolveAdapter(config, { PRIMARY_API_KEY: KEY, PRIMARY_BASE_URL: baseUrl });
}

function bodyOf(emulator: Emulator, index: number): Record<string, unknown> {
  const body = emulator.requests[index]?.body;
  if (body === null || typeof body !== 'object') throw new Error(`request ${index} has no JSON body`);
  return body as Record<string, unknown>;
}

describe('resolveChatEndpoint against the emulator', () => {
  describe('the primary route (PRIMARY_API_KEY, PRIMARY_BASE_URL at the emulator)', () => {
    it('resolves rule "primary" with the emulator address and the prices of the default model', async () => {
      const emulator = await start();
      const { rule, endpoint } = primaryRoute(emulator.url);

      expect(rule).toBe('primary');
      expect(endpoint).toMatchObject({
        provider: 'primary',
        baseUrl: emulator.url,
        thinking: false,
        prices: priceOf('primary-flash'),
      });
    });

    it('sends model, messages, temperature 0 and thinking disabled with the key as a Bearer token', async () => {
      const emulator = await start();
      await primaryRoute(emulator.url).adapter.complete({ model: 'primary-flash', messages: question });

      expect(emulator.requests[0]).toMatchObject({
        method: 'POST',
        path: '/chat/completions',
        headers: { authorization: 'Bearer [redacted]' },
      });
      expect(emulator.requests[0]?.body).toMatchInlineSnapshot(`
        {
          "messages": [
            {
              "content": "Is the release branch ready to tag?",
              "role": "user",
            },
          ],
          "model": "primary-flash",
          "temperature": 0,
          "thinking": {
            "type": "disabled",
          },
        }
      `);
    });

    it('sends every optional field of spec 4.2 only when asked, max_tokens only from a bounded copy', async () => {
      const emulator = await start();
      const { adapter } = primaryRoute(emulator.url);
      await adapter.bounded(40).complete({
        model: 'primary-flash',
        messages: [{ role: 'user', content: 'Run grep_repository TODO please.' }],
        tools: [grepTool],
        jsonObject: true,
        logprobs: true,
        temperature: 0.25,
      });
      await adapter.complete({ model: 'primary-flash', messages: question, tools: [] });

      expect(bodyOf(emulator, 0)).toMatchObject({
        tools: [grepTool],
        response_format: { type: 'json_object' },
        logprobs: true,
        top_logprobs: 1,
        temperature: 0.25,
        max_tokens: 40,
        thinking: { type: 'disabled' },
      });
      expect(Object.keys(bodyOf(emulator, 1)).sort()).toEqual([
        'messages',
        'model',
        'temperature',
        'thinking',
      ]);
    });

    it('drops a trailing slash of PRIMARY_BASE_URL, so calls reach /chat/completions', async () => {
      const emulator = await start();
      const { endpoint, adapter } = primaryRoute(`${emulator.url}//`);
      await adapter.complete({ model: 'primary-flash', messages: question });

      expect(endpoint.baseUrl).toBe(emulator.url);
      expect(emulator.requests[0]?.path).toBe('/chat/completions');
    });

    it('records usage per call and reports costUsd() exactly from the price table, with cache hits on a repeated prefix', async () => {
      const emulator = await start();
      const { endpoint, adapter } = primaryRoute(emulator.url);
      const first: ChatMessage[] = [
        { role: 'system', content: 'You triage findings of a code review and answer briefly.' },
        ...question,
      ];
      await adapter.complete({ model: 'primary-flash', messages: first });
      await adapter.complete({
        model: 'primary-flash',
        messages: [
          ...first,
          { role: 'assistant', content: 'Not yet.' },
          { role: 'user', content: 'Why not?' },
        ],
      });

      expect(emulator.requests).toHaveLength(2);
      expect(adapter.usage).toHaveLength(2);
      expect(adapter.usage[0]?.prompt_cache_hit_tokens).toBe(0);
      expect(adapter.usage[1]?.prompt_cache_hit_tokens).toBeGreaterThan(0);
      const prices = priceOf('primary-flash');
      const expected = adapter.usage.reduce((sum, entry) => sum + (costOf(prices, entry) ?? 0), 0);
      expect(expected).toBeGreaterThan(0);
      expect(adapter.costUsd()).toBe(expected);
      expect(endpoint.cost(adapter.usage[1])).toBe(costOf(prices, adapter.usage[1]));
    });

    it('retries empty JSON-mode content exactly once: two requests', async () => {
      const emulator = await start({ emptyJson: [1] });
      const response = await primaryRoute(emulator.url).adapter.complete({
        model: 'primary-flash',
        messages: question,
        jsonObject: true,
      });

      expect(emulator.requests).toHaveLength(2);
      expect(JSON.parse(response.content ?? '')).toEqual(expect.objectContaining({ findings: [] }));
    });

    it('survives a 503 and then a 429 with retry-after, succeeding on the third request', async () => {
      const emulator = await start({
        faults: [
          { requests: [1], status: 503, retryAfterMs: 10 },
          { requests: [2], status: 429, retryAfter: 1, retryAfterMs: 10 },
        ],
      });
      const response = await primaryRoute(emulator.url).adapter.complete({
        model: 'primary-flash',
        messages: question,
      });

      expect(emulator.requests).toHaveLength(3);
      expect(emulator.requests.map((request) => request.headers['x-stainless-retry-count'])).toEqual([
        '0',
        '1',
        '2',
      ]);
      expect(response.content).toEqual(expect.stringContaining('Answer to: Is the release branch ready'));
    });

    it('makes one request from a bounded copy on a 500 and rejects with ChatError "server", 500', async () => {
      const emulator = await start({ faults: [{ status: 500, retryAfterMs: 5 }] });
      const failure = await failureOf(
        primaryRoute(emulator.url)
          .adapter.bounded(32)
          .complete({ model: 'primary-flash', messages: question }),
      );

      expect(emulator.requests).toHaveLength(1);
      expect(failure).toMatchObject({ kind: 'server', status: 500 });
    });

    it('honours timeoutSeconds: a slower server gives ChatError "timeout"', async () => {
      const emulator = await start({ faults: [{ delayMs: 2000 }] });
      const failure = await failureOf(
        primaryRoute(emulator.url)
          .adapter.bounded(32)
          .complete({ model: 'primary-flash', messages: question, timeoutSeconds: 0.2 }),
      );

      expect(emulator.requests).toHaveLength(1);
      expect(failure).toMatchObject({ kind: 'timeout', status: null });
    });

    it('rejects an unaccepted model id with ModelRejectedError carrying the supported names', async () => {
      const emulator = await start();
      const failure = await failureOf(
        primaryRoute(emulator.url).adapter.complete({ model: 'primary-v4.1-flash', messages: question }),
      );

      expect(ModelRejectedError.isInstance(failure)).toBe(true);
      expect(failure).toMatchObject({
        kind: 'model_rejected',
        status: 400,
        degradation: true,
        model: 'primary-v4.1-flash',
        supportedModels: ['primary-flash', 'primary-v4-pro'],
      });
      expect(emulator.requests).toHaveLength(1);
    });

    it('accepts the alias primary-chat', async () => {
      const emulator = await start();
      const response = await primaryRoute(emulator.url).adapter.complete({
        model: 'primary-chat',
        messages: question,
      });

      expect(bodyOf(emulator, 0).model).toBe('primary-chat');
      expect(response.content).toEqual(expect.any(String));
    });

    it('lists the model ids of the emulator', async () => {
      const emulator = await start();
      const models = await primaryRoute(emulator.url).adapter.listModels();

      expect(models).toEqual(['primary-flash', 'primary-v4-pro']);
      expect(emulator.requests[0]).toMatchObject({ method: 'GET', path: '/models' });
    });

    it('gets finish_reason "length" from a bounded copy with a small cap', async () => {
      const emulator = await start();
      const response = await primaryRoute(emulator.url)
        .adapter.bounded(4)
        .complete({ model: 'primary-flash', messages: question });

      expect(bodyOf(emulator, 0).max_tokens).toBe(4);
      expect(response.finishReason).toBe('length');
    });
  });

  describe('the primary route with PRIMARY_BASE_URL ending in /v1', () => {
    it('fails loudly: ChatError "bad_request", status 404, naming the unversioned API', async () => {
      const emulator = await start();
      const { endpoint, adapter } = primaryRoute(`${emulator.url}/v1`);
      const failure = await failureOf(adapter.complete({ model: 'primary-flash', messages: question }));

      expect(endpoint.baseUrl).toBe(`${emulator.url}/v1`);
      expect(emulator.requests.map((request) => request.path)).toEqual(['/v1/chat/completions']);
      expect(failure).toMatchObject({ kind: 'bad_request', status: 404, retryable: false });
      expect(failure.message).toContain('unversioned');
    });
  });

  describe('the primary route with models.thinking true', () => {
    it('leaves thinking on and replays the reasoning across a two-step tool loop', async () => {
      const emulator = await start();
      const { endpoint, adapter } = primaryRoute(emulator.url, { models: { thinking: true } });
      const ask: ChatMessage = { role: 'user', content: 'Use grep_repository FIXME and report.' };
      const call = await adapter.complete({ model: 'primary-flash', messages: [ask], tools: [grepTool] });
      const callId = call.toolCalls[0]?.id ?? '';
      const final = await adapter.complete({
        model: 'primary-flash',
        messages: [
          ask,
          toAssistantMessage(call),
          { role: 'tool', tool_call_id: callId, content: 'src/a.ts:3: FIXME' },
        ],
        tools: [grepTool],
      });

      expect(endpoint.thinking).toBe(true);
      expect(adapter.disableThinking).toBe(false);
      expect(bodyOf(emulator, 0)).not.toHaveProperty('thinking');
      expect(call.reasoning).toEqual(expect.any(String));
      expect((bodyOf(emulator, 1).messages as ChatMessage[])[1]).toMatchObject({
        role: 'assistant',
        reasoning_content: call.reasoning,
        tool_calls: [{ id: callId, type: 'function', function: { name: 'grep_repository' } }],
      });
      expect(final.content).toEqual(expect.stringMatching(/^Tool result from grep_repository/));
    });

    it('is refused with HTTP 400 naming reasoning_content when a tool-call turn is replayed without it', async () => {
      const emulator = await start();
      const { adapter } = primaryRoute(emulator.url, { models: { thinking: true } });
      const ask: ChatMessage = { role: 'user', content: 'Use grep_repository FIXME and report.' };
      const call = await adapter.complete({ model: 'primary-flash', messages: [ask], tools: [grepTool] });
      const { reasoning_content: _dropped, ...withoutReasoning } = toAssistantMessage(call);
      const failure = await failureOf(
        adapter.complete({
          model: 'primary-flash',
          messages: [
            ask,
            withoutReasoning,
            { role: 'tool', tool_call_id: call.toolCalls[0]?.id ?? '', content: 'src/a.ts:3: FIXME' },
          ],
          tools: [grepTool],
        }),
      );

      expect(failure).toMatchObject({ kind: 'bad_request', status: 400 });
      expect(failure.message).toContain('reasoning_content');
    });
  });

  describe('the configured route (models.chat_base_url and models.chat_api_key_env)', () => {
    it('resolves rule "configured", provider "custom", and sends the key of the named variable', async () => {
      const emulator = await start();
      const { rule, endpoint, adapter } = resolveAdapter(
        { models: { chat_base_url: `${emulator.url}/`, chat_api_key_env: 'REVIEW_CHAT_KEY' } },
        { REVIEW_CHAT_KEY: KEY, PRIMARY_API_KEY: 'wire-test-unused-primary-key' },
      );
      const response = await adapter.complete({ model: 'primary-flash', messages: question });

      expect(rule).toBe('configured');
      expect(endpoint).toMatchObject({ provider: 'custom', baseUrl: emulator.url, thinking: false });
      expect(emulator.requests[0]).toMatchObject({
        path: '/chat/completions',
        headers: { authorization: 'Bearer [redacted]' },
      });
      expect(bodyOf(emulator, 0).thinking).toEqual({ type: 'disabled' });
      expect(response.content).toEqual(expect.stringContaining('Answer to: Is the release branch ready'));
    });

    it('falls back to PRIMARY_API_KEY when no key variable is named', async () => {
      const emulator = await start();
      const { rule, adapter } = resolveAdapter(
        { models: { chat_base_url: emulator.url } },
        { PRIMARY_API_KEY: KEY },
      );
      const response = await adapter.complete({ model: 'primary-flash', messages: question });

      expect(rule).toBe('configured');
      expect(response.content).toEqual(expect.any(String));
    });

    it('still resolves when the named variable is unset, sends no credentials and surfaces the 401 as "auth"', async () => {
      const emulator = await start();
      const { adapter } = resolveAdapter(
        { models: { chat_base_url: emulator.url, chat_api_key_env: 'REVIEW_CHAT_KEY' } },
        { PRIMARY_API_KEY: KEY },
      );
      const failure = await failureOf(adapter.complete({ model: 'primary-flash', messages: question }));

      expect(emulator.requests[0]?.headers).not.toHaveProperty('authorization');
      expect(failure).toMatchObject({ kind: 'auth', status: 401, retryable: false });
    });

    it('prices the calls at the detector model of models.hunter', async () => {
      const emulator = await start();
      const { endpoint, adapter } = resolveAdapter(
        { models: { chat_base_url: emulator.url, hunter: 'primary-v4-pro' } },
        { PRIMARY_API_KEY: KEY },
      );
      await adapter.complete({ model: 'primary-v4-pro', messages: question });

      expect(endpoint.prices).toEqual(priceOf('primary-v4-pro'));
      expect(adapter.costUsd()).toBe(costOf(priceOf('primary-v4-pro'), adapter.usage[0]));
      expect(adapter.costUsd()).toBeGreaterThan(0);
    });

    it('leaves thinking on the wire untouched with models.thinking true', async () => {
      const emulator = await start();
      const { adapter } = resolveAdapter(
        { models: { chat_base_url: emulator.url, chat_api_key_env: 'REVIEW_CHAT_KEY', thinking: true } },
        { REVIEW_CHAT_KEY: KEY },
      );
      const response = await adapter.complete({ model: 'primary-flash', messages: question });

      expect(bodyOf(emulator, 0)).not.toHaveProperty('thinking');
      expect(response.reasoning).toEqual(expect.any(String));
    });
  });

  describe('the gateway route (GATEWAY_API_KEY, GATEWAY_BASE_URL at the emulator)', () => {
    it('sends no thinking field, as its adapter does not disable thinking (rule 6)', async () => {
      const emulator = await start();
      const { rule, endpoint, adapter } = resolveAdapter(
        {},
        { GATEWAY_API_KEY: KEY, GATEWAY_BASE_URL: emulator.url },
      );
      await adapter.complete({ model: 'primary-flash', messages: question });

      expect(rule).toBe('gateway');
      expect(endpoint).toMatchObject({ provider: 'gateway', baseUrl: emulator.url, thinking: false });
      expect(bodyOf(emulator, 0)).not.toHaveProperty('thinking');
      expect(emulator.requests[0]?.headers.authorization).toBe('Bearer [redacted]');
    });
  });
});
