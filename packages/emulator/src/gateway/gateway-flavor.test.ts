import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { postChat, postJson, request, user } from '../../test/support/test-support.js';
import { type Emulator, startEmulator } from '../server/start-emulator.js';
import { GATEWAY_PRICES, gatewayCost } from './gateway-prices.js';

const chat = { model: 'primary-flash', messages: [user('Status of the nightly build?')] };
const grep = {
  type: 'function',
  function: {
    name: 'grep_repository',
    parameters: { type: 'object', properties: { pattern: { type: 'string' } }, required: ['pattern'] },
  },
};
const ask = user('Use grep_repository to find TODO markers');

describe('the gateway flavour', () => {
  let emulator: Emulator;
  beforeAll(async () => {
    emulator = await startEmulator({ flavor: 'gateway' });
  });
  afterAll(async () => {
    await emulator.close();
  });
  beforeEach(() => {
    emulator.reset();
  });

  describe('routes', () => {
    it('has a base address ending in /api/v1 and serves chat and models under it', async () => {
      expect(emulator.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/api\/v1$/);
      expect(emulator.flavor).toBe('gateway');
      const reply = await postChat(emulator.url, chat);
      expect(reply.status).toBe(200);
      expect(emulator.requests[0]?.path).toBe('/api/v1/chat/completions');
      const models = await request(emulator.url, '/models');
      expect(models.json.data.map((model: { id: string }) => model.id)).toEqual([
        'primary/primary-flash',
        'primary/primary-v4-pro',
      ]);
      expect(models.json.data[0].pricing).toEqual({
        prompt: '0.00000044',
        completion: '0.00000132',
        input_cache_read: '0.000000014',
      });
    });

    it('does not serve the primary flavour unversioned routes', async () => {
      const root = emulator.url.replace(/\/api\/v1$/, '');
      const reply = await postJson(root, '/chat/completions', chat);
      expect(reply.status).toBe(404);
      expect(reply.json.error.message).toContain('The API lives under /api/v1');
      expect((await request(root, '/models')).status).toBe(404);
      expect((await request(root, '/v1/models')).status).toBe(404);
    });

    it('matches a fault rule path below the base as well as the full path', async () => {
      emulator.setFaults([
        { path: '/chat/completions', status: 503, times: 1 },
        { path: '/api/v1/models', status: 500 },
      ]);
      expect((await postChat(emulator.url, chat)).status).toBe(503);
      expect((await request(emulator.url, '/models')).status).toBe(500);
    });
  });

  describe('usage', () => {
    it('is OpenAI-style with a cost computed from the price list', async () => {
      const reply = await postChat(emulator.url, { ...chat, model: 'primary-v4-pro' });
      const usage = reply.json.usage;
      expect(Object.keys(usage).sort()).toEqual([
        'completion_tokens',
        'completion_tokens_details',
        'cost',
        'prompt_tokens',
        'prompt_tokens_details',
        'total_tokens',
      ]);
      expect(usage.total_tokens).toBe(usage.prompt_tokens + usage.completion_tokens);
      expect(usage.completion_tokens_details.reasoning_tokens).toBeGreaterThan(0);
      const price = GATEWAY_PRICES['primary-v4-pro'];
      const expected =
        (usage.prompt_tokens_details.cached_tokens * (price?.cachedPerMillion ?? 0) +
          (usage.prompt_tokens - usage.prompt_tokens_details.cached_tokens) * (price?.inputPerMillion ?? 0) +
          usage.completion_tokens * (price?.outputPerMillion ?? 0)) /
        1e6;
      expect(usage.cost).toBeCloseTo(expected, 12);
      expect(usage.cost).toBeGreaterThan(0);
    });

    it('prices cached tokens at the cached rate', () => {
      const cold = gatewayCost('primary-flash', { promptTokens: 1000, cachedTokens: 0, completionTokens: 0 });
      const warm = gatewayCost('primary-flash', {
        promptTokens: 1000,
        cachedTokens: 1000,
        completionTokens: 0,
      });
      expect(cold).toBe(0.00044);
      expect(warm).toBe(0.000014);
      expect(gatewayCost('unknown', { promptTokens: 5, cachedTokens: 0, completionTokens: 5 })).toBe(0);
    });

    it('counts cache hits in cached_tokens on a repeated prompt', async () => {
      await postChat(emulator.url, chat);
      const second = await postChat(emulator.url, chat);
      expect(second.json.usage.prompt_tokens_details.cached_tokens).toBeGreaterThan(0);
    });
  });

  describe('reasoning', () => {
    it('reasons by default, with reasoning text and details, some signed', async () => {
      const reply = await postChat(emulator.url, chat);
      const message = reply.json.choices[0].message;
      expect(reply.json.id).toMatch(/^gen-/);
      expect(message.reasoning).toMatch(/^Thinking about: Status of the nightly build/);
      expect(message).not.toHaveProperty('reasoning_content');
      expect(message.reasoning_details).toEqual([
        {
          type: 'reasoning.text',
          text: message.reasoning,
          signature: expect.stringMatching(/^sig_[0-9a-f]{16}$/),
          format: 'gateway-v1',
          index: 0,
        },
        { type: 'reasoning.summary', summary: expect.any(String), format: 'gateway-v1', index: 1 },
      ]);
    });

    it('ignores thinking, stops reasoning only for reasoning {enabled: false} or {effort: none}', async () => {
      const ignored = await postChat(emulator.url, { ...chat, thinking: { type: 'disabled' } });
      expect(ignored.json.choices[0].message.reasoning).toEqual(expect.any(String));
      for (const reasoning of [{ enabled: false }, { effort: 'none' }]) {
        const off = await postChat(emulator.url, { ...chat, reasoning });
        expect(off.json.choices[0].message).not.toHaveProperty('reasoning');
        expect(off.json.choices[0].message).not.toHaveProperty('reasoning_details');
        expect(off.json.usage.completion_tokens_details.reasoning_tokens).toBe(0);
      }
      const bad = await postChat(emulator.url, { ...chat, reasoning: 'high' });
      expect(bad.status).toBe(400);
      expect(bad.json.error.param).toBe('reasoning');
    });

    it('honours temperature 0 while reasoning: the same answer every time', async () => {
      const body = { ...chat, temperature: 0 };
      const first = await postChat(emulator.url, body);
      const second = await postChat(emulator.url, body);
      expect(second.json.choices[0].message.content).toBe(first.json.choices[0].message.content);
    });
  });

  describe('a replayed tool-call turn', () => {
    async function toolTurn(): Promise<Record<string, unknown>> {
      const reply = await postChat(emulator.url, { model: 'primary-flash', messages: [ask], tools: [grep] });
      expect(reply.json.choices[0].finish_reason).toBe('tool_calls');
      return reply.json.choices[0].message;
    }

    function followUp(assistant: Record<string, unknown>) {
      const calls = assistant.tool_calls as { id: string }[];
      return {
        model: 'primary-flash',
        tools: [grep],
        messages: [
          ask,
          assistant,
          { role: 'tool', tool_call_id: calls[0]?.id, content: 'src/a.ts: TODO fix' },
        ],
      };
    }

    it('is accepted with its reasoning_details unchanged, whatever the key order', async () => {
      const assistant = await toolTurn();
      expect((await postChat(emulator.url, followUp(assistant))).status).toBe(200);
      const details = (assistant.reasoning_details as Record<string, unknown>[]).map((entry) =>
        Object.fromEntries(Object.entries(entry).reverse()),
      );
      expect(
        (await postChat(emulator.url, followUp({ ...assistant, reasoning_details: details }))).status,
      ).toBe(200);
    });

    it('is a 400 naming the message index without its reasoning_details', async () => {
      const { reasoning_details: _dropped, ...assistant } = await toolTurn();
      const reply = await postChat(emulator.url, followUp(assistant));
      expect(reply.status).toBe(400);
      expect(reply.json.error.param).toBe('messages');
      expect(reply.json.error.message).toContain(
        'Missing `reasoning_details` field in the assistant message at message index 1.',
      );
    });

    it('is a 400 when an entry or a signature was changed or dropped', async () => {
      const assistant = await toolTurn();
      const details = assistant.reasoning_details as Record<string, unknown>[];
      const resigned = details.map((entry) =>
        'signature' in entry ? { ...entry, signature: 'sig_forged' } : entry,
      );
      for (const changed of [resigned, details.slice(0, 1)]) {
        const reply = await postChat(emulator.url, followUp({ ...assistant, reasoning_details: changed }));
        expect(reply.status).toBe(400);
        expect(reply.json.error.message).toContain(
          'The `reasoning_details` of the assistant message at message index 1 were changed',
        );
      }
    });

    it('needs only some reasoning_details for tool calls the gateway did not make', async () => {
      const assistant = {
        role: 'assistant',
        content: '',
        tool_calls: [
          { id: 'call_made_up', type: 'function', function: { name: 'grep_repository', arguments: '{}' } },
        ],
      };
      const withDetails = { ...assistant, reasoning_details: [{ type: 'reasoning.text', text: 'hm' }] };
      expect((await postChat(emulator.url, followUp(withDetails))).status).toBe(200);
      expect((await postChat(emulator.url, followUp(assistant))).status).toBe(400);
      const off = { ...followUp(assistant), reasoning: { enabled: false } };
      expect((await postChat(emulator.url, off)).status).toBe(200);
    });
  });
});
