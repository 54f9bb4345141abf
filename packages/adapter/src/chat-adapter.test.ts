import { inspect } from 'node:util';
import { emptyChatResponse } from '@switchboard/test-support';
import { describe, expect, it } from 'vitest';
import { answer, PlainTransport, RawTransport, reply } from '../test/support/raw-transport.js';
import { ChatAdapter } from './chat-adapter.js';
import type { CompleteRequest, ToolSchema } from './chat-client.js';
import { ChatError } from './chat-error.js';
import type { ChatTransport } from './chat-transport.js';
import type { CostModel } from './cost-model.js';
import { OpenAITransport } from './openai-transport.js';

const request: CompleteRequest = { model: 'primary-flash', messages: [{ role: 'user', content: 'hi' }] };

/** Costs one unit per completion token; null when told so. */
const perToken: CostModel = {
  cost: (usage) => {
    const tokens = (usage as { completion_tokens?: unknown }).completion_tokens;
    return typeof tokens === 'number' ? tokens : null;
  },
};

describe('ChatAdapter', () => {
  describe('request fields (spec 4.2)', () => {
    it('sends thinking disabled and nothing else by default, tools undefined, timeout 60', async () => {
      const transport = new RawTransport([answer('ok')]);
      await new ChatAdapter(transport).complete(request);
      expect(transport.requests[0]).toMatchInlineSnapshot(`
        {
          "extraBody": {
            "thinking": {
              "type": "disabled",
            },
          },
          "messages": [
            {
              "content": "hi",
              "role": "user",
            },
          ],
          "model": "primary-flash",
          "timeoutSeconds": 60,
          "tools": undefined,
        }
      `);
    });

    it('leaves thinking out when disableThinking is false', async () => {
      const transport = new RawTransport([answer('ok')]);
      await new ChatAdapter(transport, { disableThinking: false }).complete(request);
      expect(transport.requests[0]?.extraBody).toEqual({});
    });

    it('sends every optional field when asked, with the given timeout and tools', async () => {
      const transport = new RawTransport([answer('{"a":1}')]);
      const tool: ToolSchema = {
        type: 'function',
        function: { name: 'grep', parameters: { type: 'object' } },
      };
      await new ChatAdapter(transport).complete({
        ...request,
        tools: [tool],
        timeoutSeconds: 5,
        jsonObject: true,
        logprobs: true,
        temperature: 0.7,
      });
      expect(transport.requests[0]).toStrictEqual({
        model: 'primary-flash',
        messages: [{ role: 'user', content: 'hi' }],
        tools: [tool],
        timeoutSeconds: 5,
        extraBody: {
          thinking: { type: 'disabled' },
          response_format: { type: 'json_object' },
          logprobs: true,
          top_logprobs: 1,
          temperature: 0.7,
        },
      });
    });

    it('passes tools as undefined when the list is empty', async () => {
      const transport = new RawTransport([answer('ok')]);
      await new ChatAdapter(transport).complete({ ...request, tools: [] });
      expect(transport.requests[0]).toHaveProperty('tools', undefined);
    });

    it('sends a temperature of 0 when it is given as 0', async () => {
      const transport = new RawTransport([answer('ok')]);
      await new ChatAdapter(transport).complete({ ...request, temperature: 0 });
      expect(transport.requests[0]?.extraBody).toHaveProperty('temperature', 0);
    });

    it('leaves response_format, logprobs and top_logprobs out when the flags are false', async () => {
      const transport = new RawTransport([answer('ok')]);
      await new ChatAdapter(transport).complete({ ...request, jsonObject: false, logprobs: false });
      expect(Object.keys(transport.requests[0]?.extraBody ?? {})).toEqual(['thinking']);
    });

    it('never sends max_tokens from an unbounded adapter', async () => {
      const transport = new RawTransport([answer('ok')]);
      await new ChatAdapter(transport).complete(request);
      expect(transport.requests[0]?.extraBody).not.toHaveProperty('max_tokens');
    });
  });

  describe('bad input', () => {
    it('rejects a transport without completeChat', () => {
      expect(() => new ChatAdapter({} as ChatTransport)).toThrow(/completeChat/);
    });

    it.each([
      ['a model that is not a string', { ...request, model: 1 }, /request\.model/],
      ['messages that are not an array', { ...request, messages: 'hi' }, /request\.messages/],
      ['a zero timeout', { ...request, timeoutSeconds: 0 }, /timeoutSeconds/],
      ['an infinite timeout', { ...request, timeoutSeconds: Number.POSITIVE_INFINITY }, /timeoutSeconds/],
    ])('rejects %s, naming the field', async (_, bad, message) => {
      const transport = new RawTransport([answer('ok')]);
      await expect(new ChatAdapter(transport).complete(bad as unknown as CompleteRequest)).rejects.toThrow(
        message,
      );
      expect(transport.requests).toHaveLength(0);
    });
  });

  describe('reply reading on the raw path', () => {
    it('returns the first choice message as a chat response with its finish reason', async () => {
      const transport = new RawTransport([
        reply({ role: 'assistant', content: 'hello', reasoning_content: 'thought' }),
      ]);
      const response = await new ChatAdapter(transport).complete(request);
      expect(response).toMatchObject({ content: 'hello', reasoning: 'thought', finishReason: 'stop' });
    });

    it('merges the choice logprobs into the message and averages them', async () => {
      const logprobs = {
        content: [
          { token: 'a', logprob: -0.5 },
          { token: 'b', logprob: -1.5 },
        ],
      };
      const transport = new RawTransport([
        { choices: [{ message: { content: 'ab' }, logprobs, finish_reason: 'length' }] },
      ]);
      const response = await new ChatAdapter(transport).complete({ ...request, logprobs: true });
      expect(response.logprobs).toEqual(logprobs);
      expect(response.meanLogprob).toBe(-1);
      expect(response.finishReason).toBe('length');
    });

    it('keeps the message own logprobs when the choice logprobs are null', async () => {
      const own = { content: [{ logprob: -2 }] };
      const transport = new RawTransport([
        { choices: [{ message: { content: 'x', logprobs: own }, logprobs: null }] },
      ]);
      const response = await new ChatAdapter(transport).complete(request);
      expect(response.logprobs).toEqual(own);
    });

    it.each([
      ['no choices', { choices: [] }],
      ['choices that are not a list', { choices: 'x' }],
      ['a choice without a message', { choices: [{ finish_reason: 'stop' }] }],
      ['a message that is not an object', { choices: [{ message: 'hello' }] }],
      ['a reply that is not an object', 'hello'],
      ['a null reply', null],
    ])('reads %s as the empty message', async (_, payload) => {
      const transport = new RawTransport([payload]);
      const response = await new ChatAdapter(transport).complete(request);
      expect({ ...response, calls: [] }).toEqual(emptyChatResponse());
      expect(response.calls).toHaveLength(1);
    });
  });

  describe('usage', () => {
    it('records one copy of reply.usage per raw call', async () => {
      const first = { prompt_tokens: 10, completion_tokens: 2 };
      const second = { prompt_tokens: 20, completion_tokens: 4 };
      const transport = new RawTransport([answer('a', first), answer('b', second)]);
      const adapter = new ChatAdapter(transport);
      await adapter.complete(request);
      await adapter.complete(request);
      expect(adapter.usage).toEqual([first, second]);
      expect(adapter.usage[0]).not.toBe(first);
    });

    it('does not change when the reply usage object changes later', async () => {
      const usage = { completion_tokens: 2 };
      const adapter = new ChatAdapter(new RawTransport([answer('a', usage)]));
      await adapter.complete(request);
      usage.completion_tokens = 99;
      expect(adapter.usage).toEqual([{ completion_tokens: 2 }]);
    });

    it.each([
      ['absent', undefined],
      ['null', null],
      ['an array', [1, 2]],
      ['a number', 5],
      ['a string', 'usage'],
    ])('records nothing when usage is %s', async (_, usage) => {
      const adapter = new ChatAdapter(new RawTransport([reply({ content: 'a' }, { usage })]));
      await adapter.complete(request);
      expect(adapter.usage).toEqual([]);
    });

    it('records no usage, an estimate, and uses completeChat when the transport has no raw operation', async () => {
      const transport = new PlainTransport([
        { role: 'assistant', content: 'plain', usage: { completion_tokens: 1 } },
      ]);
      const adapter = new ChatAdapter(transport, { endpoint: perToken });
      const response = await adapter.complete({ ...request, temperature: 0.2 });
      expect(response.content).toBe('plain');
      expect(transport.requests[0]?.extraBody).toEqual({ thinking: { type: 'disabled' }, temperature: 0.2 });
      expect(adapter.usage).toEqual([]);
      // A reply arrived with no usage the adapter can read: estimated, never free.
      expect(response.calls[0]?.settlement).toBe('estimate');
      expect(adapter.costUsd()).toBeGreaterThan(0);
    });
  });

  describe('JSON mode', () => {
    it.each([
      ['empty', ''],
      ['whitespace only', ' \n\t '],
      ['null', null],
    ])('retries exactly once when the content is %s', async (_, content) => {
      const transport = new RawTransport([answer(content), answer('{"ok":true}')]);
      const response = await new ChatAdapter(transport).complete({ ...request, jsonObject: true });
      expect(transport.requests).toHaveLength(2);
      expect(transport.requests[1]).toEqual(transport.requests[0]);
      expect(response.content).toBe('{"ok":true}');
    });

    it('returns the second empty answer without a third call', async () => {
      const transport = new RawTransport([answer(''), answer(''), answer('{}')]);
      const response = await new ChatAdapter(transport).complete({ ...request, jsonObject: true });
      expect(transport.requests).toHaveLength(2);
      expect(response.content).toBe('');
    });

    it('records usage for both calls of a retry', async () => {
      const transport = new RawTransport([
        answer('', { completion_tokens: 1 }),
        answer('{}', { completion_tokens: 2 }),
      ]);
      const adapter = new ChatAdapter(transport, { endpoint: perToken });
      await adapter.complete({ ...request, jsonObject: true });
      expect(adapter.usage).toHaveLength(2);
      expect(adapter.costUsd()).toBe(3);
    });

    it('does not retry empty content outside JSON mode', async () => {
      const transport = new RawTransport([answer(''), answer('second')]);
      const response = await new ChatAdapter(transport).complete(request);
      expect(transport.requests).toHaveLength(1);
      expect(response.content).toBe('');
    });

    it('does not retry non-empty JSON content', async () => {
      const transport = new RawTransport([answer('{}'), answer('second')]);
      await new ChatAdapter(transport).complete({ ...request, jsonObject: true });
      expect(transport.requests).toHaveLength(1);
    });

    it('retries once on the plain path too', async () => {
      const transport = new PlainTransport([{ content: '' }, { content: '[]' }]);
      const response = await new ChatAdapter(transport).complete({ ...request, jsonObject: true });
      expect(transport.requests).toHaveLength(2);
      expect(response.content).toBe('[]');
    });
  });

  describe('costUsd', () => {
    it('is 0 without an endpoint, even with usage recorded', async () => {
      const adapter = new ChatAdapter(new RawTransport([answer('a', { completion_tokens: 5 })]));
      await adapter.complete(request);
      expect(adapter.usage).toHaveLength(1);
      expect(adapter.costUsd()).toBe(0);
    });

    it('sums the endpoint cost of each entry', async () => {
      const transport = new RawTransport([
        answer('a', { completion_tokens: 5 }),
        answer('b', { completion_tokens: 7 }),
      ]);
      const adapter = new ChatAdapter(transport, { endpoint: perToken });
      await adapter.complete(request);
      await adapter.complete(request);
      expect(adapter.costUsd()).toBe(12);
    });

    it('counts an entry the endpoint cannot price as 0', async () => {
      const transport = new RawTransport([
        answer('a', { completion_tokens: 5 }),
        answer('b', { prompt_tokens: 7 }),
      ]);
      const adapter = new ChatAdapter(transport, { endpoint: perToken });
      await adapter.complete(request);
      await adapter.complete(request);
      expect(adapter.costUsd()).toBe(5);
    });

    it('is 0 with an endpoint that prices nothing', async () => {
      const unpriced: CostModel = { cost: () => null };
      const adapter = new ChatAdapter(new RawTransport([answer('a', { completion_tokens: 5 })]), {
        endpoint: unpriced,
      });
      await adapter.complete(request);
      expect(adapter.costUsd()).toBe(0);
    });

    it('skips costs that are not finite numbers', async () => {
      const costs: unknown[] = [Number.NaN, Number.POSITIVE_INFINITY, '3', 2];
      const endpoint = { cost: () => costs.shift() } as unknown as CostModel;
      const transport = new RawTransport(costs.map(() => answer('a', { completion_tokens: 1 })));
      const adapter = new ChatAdapter(transport, { endpoint });
      for (let call = 0; call < 4; call += 1) await adapter.complete(request);
      expect(adapter.costUsd()).toBe(2);
    });

    it('keeps a running total: each entry is priced once, however often the cost is read', async () => {
      const calls = 200;
      let priced = 0;
      const endpoint: CostModel = {
        cost: (usage) => {
          priced += 1;
          return (usage as { completion_tokens: number }).completion_tokens;
        },
      };
      const replies = Array.from({ length: calls }, (_, index) =>
        answer('a', { completion_tokens: index + 1 }),
      );
      const adapter = new ChatAdapter(new RawTransport(replies), { endpoint });
      for (let call = 0; call < calls; call += 1) {
        await adapter.complete(request);
        adapter.costUsd();
      }
      expect(adapter.costUsd()).toBe((calls * (calls + 1)) / 2);
      expect(priced).toBe(calls);
    });
  });

  describe('bounded', () => {
    it.each([
      ['zero', 0],
      ['a negative number', -5],
      ['minus Infinity', Number.NEGATIVE_INFINITY],
    ])('throws RangeError("max_output_tokens must be positive") for %s', (_, value) => {
      const adapter = new ChatAdapter(new RawTransport([]));
      expect(() => adapter.bounded(value)).toThrow(new RangeError('max_output_tokens must be positive'));
      expect(() => adapter.bounded(value)).toThrow(RangeError);
    });

    it.each([
      ['a fraction', 2.5],
      ['NaN', Number.NaN],
      ['Infinity', Number.POSITIVE_INFINITY],
      ['a numeric string', '10'],
      ['undefined', undefined],
    ])('throws RangeError("max_output_tokens must be a positive integer") for %s', (_, value) => {
      const adapter = new ChatAdapter(new RawTransport([]));
      expect(() => adapter.bounded(value as number)).toThrow(
        new RangeError('max_output_tokens must be a positive integer'),
      );
    });

    it('sends max_tokens through a single-attempt copy of the transport', async () => {
      const transport = new RawTransport([answer('capped')]);
      const bounded = new ChatAdapter(transport).bounded(64);
      await bounded.complete(request);
      expect(transport.copies).toHaveLength(1);
      expect(transport.copies[0]?.maxAttempts).toBe(1);
      expect(transport.requests).toHaveLength(0);
      expect(transport.copies[0]?.requests[0]?.extraBody).toEqual({
        thinking: { type: 'disabled' },
        max_tokens: 64,
      });
    });

    it('keeps disableThinking and endpoint', () => {
      const adapter = new ChatAdapter(new RawTransport([]), { disableThinking: false, endpoint: perToken });
      const bounded = adapter.bounded(10);
      expect(bounded.disableThinking).toBe(false);
      expect(bounded.endpoint).toBe(perToken);
    });

    it('starts its own empty usage and cost, leaving the original untouched', async () => {
      const transport = new RawTransport([
        answer('a', { completion_tokens: 3 }),
        answer('b', { completion_tokens: 4 }),
      ]);
      const adapter = new ChatAdapter(transport, { endpoint: perToken });
      await adapter.complete(request);
      const bounded = adapter.bounded(10);
      expect(bounded.usage).toEqual([]);
      expect(bounded.costUsd()).toBe(0);
      await bounded.complete(request);
      expect(bounded.usage).toEqual([{ completion_tokens: 4 }]);
      expect(bounded.costUsd()).toBe(4);
      expect(adapter.usage).toEqual([{ completion_tokens: 3 }]);
      expect(adapter.costUsd()).toBe(3);
    });

    it('does not retry empty JSON content', async () => {
      const transport = new RawTransport([answer(''), answer('{}')]);
      const response = await new ChatAdapter(transport)
        .bounded(10)
        .complete({ ...request, jsonObject: true });
      expect(transport.copies[0]?.requests).toHaveLength(1);
      expect(response.content).toBe('');
    });

    it('propagates a transport failure after one call', async () => {
      const failure = new ChatError({ kind: 'server', status: 500, message: 'down' });
      const transport = new RawTransport([failure, answer('{}')]);
      const bounded = new ChatAdapter(transport).bounded(10);
      await expect(bounded.complete(request)).rejects.toBe(failure);
      expect(transport.copies[0]?.requests).toHaveLength(1);
    });

    it('uses the transport itself when it has no withMaxAttempts', async () => {
      const transport = new PlainTransport([{ content: 'x' }]);
      await new ChatAdapter(transport).bounded(3).complete(request);
      expect(transport.requests[0]?.extraBody).toHaveProperty('max_tokens', 3);
    });

    it('replaces the cap when a bounded copy is bounded again', async () => {
      const transport = new RawTransport([answer('x')]);
      await new ChatAdapter(transport).bounded(100).bounded(7).complete(request);
      expect(transport.copies[0]?.copies[0]?.requests[0]?.extraBody).toHaveProperty('max_tokens', 7);
    });
  });

  describe('key safety', () => {
    it('shows no key through util.inspect or JSON.stringify of an adapter over an OpenAITransport', () => {
      const key = 'canary-key-adapter-5f1c2e';
      const transport = new OpenAITransport({ apiKey: key, baseUrl: 'http://127.0.0.1:9' });
      const adapter = new ChatAdapter(transport, { endpoint: perToken });
      const forms = [
        inspect(adapter, { depth: Number.POSITIVE_INFINITY, showHidden: true }),
        JSON.stringify(adapter),
        inspect(adapter.bounded(5), { depth: Number.POSITIVE_INFINITY, showHidden: true }),
        JSON.stringify(adapter.bounded(5)),
      ];
      for (const form of forms) expect(form).not.toContain(key);
      expect(forms[0]).toContain('disableThinking');
    });
  });
});

describe('ChatAdapter.listModels', () => {
  it("delegates to the transport's listModels with the caller's options", async () => {
    const seen: unknown[] = [];
    const transport: ChatTransport = {
      completeChat: async () => ({}),
      listModels: async (options) => {
        seen.push(options);
        return ['primary-flash', 'primary-v4-pro'];
      },
    };
    const adapter = new ChatAdapter(transport);
    await expect(adapter.listModels({ timeoutSeconds: 5 })).resolves.toEqual([
      'primary-flash',
      'primary-v4-pro',
    ]);
    expect(seen).toEqual([{ timeoutSeconds: 5 }]);
  });

  it('rejects with a TypeError when the transport cannot list models', async () => {
    const adapter = new ChatAdapter(new PlainTransport([]));
    await expect(adapter.listModels()).rejects.toThrow(/cannot list models/);
  });
});
