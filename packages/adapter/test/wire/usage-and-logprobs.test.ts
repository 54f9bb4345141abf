import { promptTokens } from '@switchboard/emulator';
import { costOf, priceOf } from '@switchboard/prices';
import { closeTestEmulators, startTestEmulator } from '@switchboard/test-support';
import { afterEach, describe, expect, it } from 'vitest';
import { ChatAdapter, type ChatMessage } from '../../src/index.js';
import { closeLoopbackServers } from '../support/listen-on-loopback.js';
import { pricedAs } from '../support/priced-as.js';
import { wireTap } from '../support/wire-tap.js';
import { WIRE_TRANSPORTS, type WireTransportCase } from '../support/wire-transports.js';

// Spec 4.2 (reply fields read) and 8 (cost rule), against what the emulator actually sent back.

const KEY = 'wire-test-key-7b3d';
const system: ChatMessage = {
  role: 'system',
  content: 'You review pull requests of a small TypeScript monorepo and answer in two sentences.',
};

afterEach(async () => {
  await closeLoopbackServers();
  await closeTestEmulators();
});

/** An emulator and a transport to it through a tap that keeps a copy of every reply body the client read. */
async function setUp(wire: WireTransportCase) {
  const emulator = await startTestEmulator({ key: KEY });
  const tap = await wireTap(emulator.url);
  const transport = wire.make({ apiKey: KEY, baseUrl: tap.url });
  const replies = () => tap.replies.map((reply) => JSON.parse(reply.body) as Record<string, unknown>);
  return { emulator, transport, replies };
}

/** `choices[0]` of a reply body the client read. */
function firstChoice(reply: Record<string, unknown> | undefined): Record<string, unknown> {
  const choice: unknown = Array.isArray(reply?.choices) ? reply.choices[0] : undefined;
  if (choice === null || typeof choice !== 'object') throw new Error('the reply has no first choice');
  return choice as Record<string, unknown>;
}

describe.each(WIRE_TRANSPORTS)('over $name', (wire) => {
  describe('ChatAdapter, usage and cost (spec 2.3, 8)', () => {
    describe("three calls, the later ones repeating the first one's prefix", () => {
      const first: ChatMessage[] = [system, { role: 'user', content: 'Does the adapter retry empty JSON?' }];
      const second: ChatMessage[] = [...first, { role: 'assistant', content: 'Yes, once.' }];
      const third: ChatMessage[] = [...second, { role: 'user', content: 'And in a bounded copy?' }];

      it('records one usage entry per raw call, equal to the usage the server sent', async () => {
        const { transport, replies } = await setUp(wire);
        const adapter = new ChatAdapter(transport, { endpoint: pricedAs('primary-flash') });
        for (const messages of [first, second, third])
          await adapter.complete({ model: 'primary-flash', messages });

        expect(replies()).toHaveLength(3);
        expect(adapter.usage).toEqual(replies().map((reply) => reply.usage));
        expect(adapter.usage.map((entry) => entry.prompt_tokens)).toEqual(
          [first, second, third].map((messages) => promptTokens({ messages }).length),
        );
      });

      it('gets prompt cache hits for the repeated prefix, hits and misses adding up to the prompt', async () => {
        const { transport } = await setUp(wire);
        const adapter = new ChatAdapter(transport);
        for (const messages of [first, second, third])
          await adapter.complete({ model: 'primary-flash', messages });

        const [cold, warm, warmer] = adapter.usage;
        expect(cold?.prompt_cache_hit_tokens).toBe(0);
        expect(warm?.prompt_cache_hit_tokens).toBeGreaterThan(0);
        expect(warmer?.prompt_cache_hit_tokens).toBeGreaterThan(Number(warm?.prompt_cache_hit_tokens));
        for (const entry of adapter.usage) {
          expect(Number(entry.prompt_cache_hit_tokens) + Number(entry.prompt_cache_miss_tokens)).toBe(
            entry.prompt_tokens,
          );
        }
      });

      it("reports costUsd() exactly as the sum of the price table's cost of each recorded entry", async () => {
        const { transport } = await setUp(wire);
        const adapter = new ChatAdapter(transport, { endpoint: pricedAs('primary-flash') });
        for (const messages of [first, second, third])
          await adapter.complete({ model: 'primary-flash', messages });

        const prices = priceOf('primary-flash');
        const expected = adapter.usage.reduce((sum, entry) => sum + (costOf(prices, entry) ?? 0), 0);
        expect(expected).toBeGreaterThan(0);
        expect(adapter.costUsd()).toBe(expected);
        // The cache hits are billed at the lower price: the same tokens all billed as input cost more.
        const uncached = adapter.usage.reduce(
          (sum, entry) =>
            sum +
            (costOf(prices, {
              prompt_tokens: entry.prompt_tokens,
              completion_tokens: entry.completion_tokens,
            }) ?? 0),
          0,
        );
        expect(adapter.costUsd()).toBeLessThan(uncached);
      });

      it('prices primary-v4-pro calls at its own row of the table', async () => {
        const { transport } = await setUp(wire);
        const adapter = new ChatAdapter(transport, { endpoint: pricedAs('primary-v4-pro') });
        await adapter.complete({ model: 'primary-v4-pro', messages: first });

        const [entry] = adapter.usage;
        const prices = priceOf('primary-v4-pro');
        expect(adapter.costUsd()).toBe(costOf(prices, entry));
        expect(adapter.costUsd()).toBeGreaterThan(costOf(priceOf('primary-flash'), entry) ?? Number.NaN);
      });

      it("keeps a bounded copy's usage apart, starting empty", async () => {
        const { transport } = await setUp(wire);
        const adapter = new ChatAdapter(transport, { endpoint: pricedAs('primary-flash') });
        await adapter.complete({ model: 'primary-flash', messages: first });
        const bounded = adapter.bounded(16);
        expect(bounded.usage).toEqual([]);
        await bounded.complete({ model: 'primary-flash', messages: second });

        expect(adapter.usage).toHaveLength(1);
        expect(bounded.usage).toHaveLength(1);
        // The cost rule, rounded to the nearest nano-dollar.
        expect(bounded.costUsd()).toBe(
          Math.round((costOf(priceOf('primary-flash'), bounded.usage[0]) as number) * 1e9) / 1e9,
        );
      });
    });

    describe('no cost model', () => {
      it('still records usage but reports a cost of 0', async () => {
        const { transport } = await setUp(wire);
        const adapter = new ChatAdapter(transport);
        await adapter.complete({ model: 'primary-flash', messages: [system] });

        expect(adapter.usage).toHaveLength(1);
        expect(adapter.costUsd()).toBe(0);
      });
    });
  });

  describe('ChatAdapter, logprobs (spec 4.2)', () => {
    describe('a call with logprobs', () => {
      it("returns the choice's logprobs, which sit beside the message on the wire", async () => {
        const { transport, replies } = await setUp(wire);
        const response = await new ChatAdapter(transport).complete({
          model: 'primary-flash',
          messages: [{ role: 'user', content: 'Summarise the change log.' }],
          logprobs: true,
        });

        const choice = firstChoice(replies()[0]);
        expect(choice.message).not.toHaveProperty('logprobs');
        expect(choice.logprobs).toEqual(expect.objectContaining({ content: expect.any(Array) }));
        expect(response.logprobs).toEqual(choice.logprobs);
      });

      it('has one token per piece of the content, each with a single top alternative', async () => {
        const { transport } = await setUp(wire);
        const response = await new ChatAdapter(transport).complete({
          model: 'primary-flash',
          messages: [{ role: 'user', content: 'Summarise the change log.' }],
          logprobs: true,
        });

        const tokens = (response.logprobs as { content: { token: string; top_logprobs: unknown[] }[] })
          .content;
        expect(tokens.map((entry) => entry.token).join('')).toBe(response.content);
        for (const entry of tokens) expect(entry.top_logprobs).toHaveLength(1);
      });

      it('gives meanLogprob as the mean of the logprobs the server sent', async () => {
        const { transport, replies } = await setUp(wire);
        const response = await new ChatAdapter(transport).complete({
          model: 'primary-flash',
          messages: [{ role: 'user', content: 'Summarise the change log.' }],
          logprobs: true,
        });

        const { logprobs } = firstChoice(replies()[0]) as { logprobs: { content: { logprob: number }[] } };
        const sent = logprobs.content.map((entry) => entry.logprob);
        expect(sent.length).toBeGreaterThan(0);
        const mean = sent.reduce((sum, value) => sum + value, 0) / sent.length;
        expect(response.meanLogprob).toBeCloseTo(mean, 12);
        expect(response.meanLogprob).toBeLessThan(0);
      });
    });

    describe('a call without logprobs', () => {
      it('gets null logprobs from the server and reports null logprobs and meanLogprob', async () => {
        const { transport, replies } = await setUp(wire);
        const response = await new ChatAdapter(transport).complete({
          model: 'primary-flash',
          messages: [{ role: 'user', content: 'Summarise the change log.' }],
        });

        expect(firstChoice(replies()[0])?.logprobs).toBeNull();
        expect(response.logprobs).toBeNull();
        expect(response.meanLogprob).toBeNull();
      });
    });
  });
});
