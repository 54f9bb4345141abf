import { type CallRecord, ChatAdapter, type ChatMessage, OpenAITransport } from '@switchboard/adapter';
import type { Emulator, EmulatorOptions } from '@switchboard/emulator';
import { costOf, PRICES_VERSION, priceOf } from '@switchboard/prices';
import { closeTestEmulators, startTestEmulator } from '@switchboard/test-support';
import { afterEach, describe, expect, it } from 'vitest';
import {
  ChatEndpoint,
  isAdapterResolution,
  resolveChatEndpoint,
  type SwitchboardConfig,
} from '../src/index.js';

// Issue 11 on the wire: resolveChatEndpoint's ChatAdapter over a real OpenAITransport, every call
// across a loopback socket to the emulator, each priced by the model it was made with.

const KEY = 'pricing-wire-key-7c1a';
const question: ChatMessage[] = [{ role: 'user', content: 'Which tests cover the release branch?' }];
// A long shared prefix, so a second call with it is served partly from the emulator's prefix cache.
const longQuestion: ChatMessage[] = [
  { role: 'system', content: 'You review pull requests of a payments service. '.repeat(40) },
  { role: 'user', content: 'Summarise the risk of the change in one line.' },
];

afterEach(closeTestEmulators);

function start(options: EmulatorOptions = {}): Promise<Emulator> {
  return startTestEmulator({ key: KEY, ...options });
}

function resolveAdapter(config: SwitchboardConfig, env: Record<string, string>) {
  const resolved = resolveChatEndpoint(config, { env: Object.freeze({ ...env }) });
  if (!isAdapterResolution(resolved)) throw new Error(`expected an adapter route, got ${resolved?.rule}`);
  return resolved;
}

function primaryRoute(emulator: Emulator, config: SwitchboardConfig = {}) {
  return resolveAdapter(config, { PRIMARY_API_KEY: KEY, PRIMARY_BASE_URL: emulator.url });
}

function gatewayRoute(emulator: Emulator, config: SwitchboardConfig = {}) {
  return resolveAdapter(config, { GATEWAY_API_KEY: KEY, GATEWAY_BASE_URL: emulator.url });
}

function onlyCall(calls: readonly CallRecord[]): CallRecord {
  expect(calls).toHaveLength(1);
  return calls[0] as CallRecord;
}

/** A whole reply for a model the emulator does not serve, sent as a fault's body. */
function replyFor(model: string, usage: Record<string, unknown>) {
  const reply = {
    id: 'chatcmpl-lab',
    object: 'chat.completion',
    created: 1,
    model,
    choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }],
    usage,
  };
  return { model, body: JSON.stringify(reply), contentType: 'application/json' };
}

const labUsage = { prompt_tokens: 2_000, completion_tokens: 500, total_tokens: 2_500 };

describe('ChatEndpoint pricing on the wire', () => {
  describe('a call on another model than the pricing model', () => {
    it('costs a primary-v4-pro call at v4-pro prices through an endpoint priced for primary-flash', async () => {
      const emulator = await start();
      const { client, endpoint } = primaryRoute(emulator);
      expect(endpoint.prices).toEqual(priceOf('primary-flash'));
      expect(endpoint.pricingModel).toBe('primary-flash');

      const response = await client.complete({ model: 'primary-v4-pro', messages: question });

      const record = onlyCall(response.calls);
      const usage = record.usage;
      expect(record).toMatchObject({
        model: 'primary-v4-pro',
        pricedAs: 'primary-v4-pro',
        priceSource: 'table',
        tariff: null,
        priceVersion: PRICES_VERSION,
      });
      expect(record.costUsd).toBeCloseTo(costOf(priceOf('primary-v4-pro'), usage) as number, 15);
      expect(record.costUsd).toBeGreaterThan(costOf(priceOf('primary-flash'), usage) as number);
      expect(response.costUsd).toBe(record.costUsd);
      expect(client.costUsd()).toBe(record.costUsd);
    });

    it('costs a call on the pricing model as endpoint.cost(usage) does, to the nano-dollar', async () => {
      const emulator = await start();
      const { client, endpoint } = primaryRoute(emulator);

      const response = await client.complete({ model: 'primary-flash', messages: question });

      const record = onlyCall(response.calls);
      expect(record.costNanoUsd).toBe(Math.round((endpoint.cost(record.usage) as number) * 1e9));
      expect(record.pricedAs).toBe('primary-flash');
      expect(client.costNanoUsd()).toBe(record.costNanoUsd);
    });

    it('prices a model the emulator does not serve by the configuration entry of that id', async () => {
      const emulator = await start({ faults: [replyFor('lab-model', labUsage)] });
      const config: SwitchboardConfig = {
        prices: { 'lab-model': { cache_hit_per_m: 0.1, input_per_m: 1, output_per_m: 4 } },
      };
      const { client } = primaryRoute(emulator, config);

      const response = await client.complete({ model: 'lab-model', messages: question });

      const record = onlyCall(response.calls);
      expect(record).toMatchObject({ pricedAs: 'lab-model', priceSource: 'table' });
      expect(record.costUsd).toBeCloseTo((2_000 * 1 + 500 * 4) / 1_000_000, 15);
      expect(response.costUsd).toBe(record.costUsd);
    });

    it('leaves a call on a model with no price unpriced (costUsd null), never at the endpoint prices', async () => {
      const emulator = await start({ faults: [replyFor('lab-model', labUsage)] });
      const { client } = primaryRoute(emulator);

      const response = await client.complete({ model: 'lab-model', messages: question });

      const record = onlyCall(response.calls);
      expect(record).toMatchObject({ costUsd: null, pricedAs: null, priceSource: null });
      expect(record.usage).toMatchObject(labUsage);
      expect(response.costUsd).toBeNull();
      expect(client.costUsd()).toBe(0);
    });
  });

  describe('the gateway flavour (OpenAI-style usage with cost)', () => {
    it("keeps the gateway's usage.cost as providerCostUsd beside the table's price", async () => {
      const emulator = await start({ flavor: 'gateway' });
      const { client, endpoint } = gatewayRoute(emulator);
      expect(endpoint.provider).toBe('gateway');

      const response = await client.complete({ model: 'primary-v4-pro', messages: question });

      const record = onlyCall(response.calls);
      const providerCost = record.usage?.cost;
      expect(typeof providerCost).toBe('number');
      expect(record).toMatchObject({
        priceSource: 'table',
        pricedAs: 'primary-v4-pro',
        providerCostUsd: providerCost,
      });
      // The emulated gateway charges the table's figures for the same ids.
      expect(record.costUsd).toBeCloseTo(providerCost as number, 9);
    });

    it("makes the gateway's usage.cost the cost of a call on a model with no local price", async () => {
      const usage = { ...labUsage, cost: 0.00123 };
      const emulator = await start({ flavor: 'gateway', faults: [replyFor('gateway-only-model', usage)] });
      const { client } = gatewayRoute(emulator);

      const response = await client.complete({ model: 'gateway-only-model', messages: question });

      expect(onlyCall(response.calls)).toMatchObject({
        costUsd: 0.00123,
        providerCostUsd: 0.00123,
        priceSource: 'provider',
        pricedAs: 'gateway-only-model',
        priceVersion: PRICES_VERSION,
      });
      expect(response.costUsd).toBe(0.00123);
      expect(client.costUsd()).toBe(0.00123);
    });

    it('bills prompt_tokens_details.cached_tokens at the cache-hit price', async () => {
      const emulator = await start({ flavor: 'gateway' });
      const { client } = gatewayRoute(emulator);

      await client.complete({ model: 'primary-flash', messages: longQuestion });
      const second = onlyCall(
        (await client.complete({ model: 'primary-flash', messages: longQuestion })).calls,
      );

      const usage = second.usage;
      expect(usage).not.toHaveProperty('prompt_cache_hit_tokens');
      const cached = Number(usage?.prompt_tokens_details?.cached_tokens);
      const prompt = Number(usage?.prompt_tokens);
      const output = Number(usage?.completion_tokens);
      expect(cached).toBeGreaterThan(0);
      const flash = priceOf('primary-flash');
      if (flash === null) throw new Error('primary-flash has no price');
      const expected =
        (cached * flash.cacheHitPerM + (prompt - cached) * flash.inputPerM + output * flash.outputPerM) /
        1_000_000;
      expect(second.costUsd).toBeCloseTo(expected, 15);
      // At the full input price it would cost more.
      expect(second.costUsd).toBeLessThan((prompt * flash.inputPerM + output * flash.outputPerM) / 1_000_000);
      expect(second.costUsd).toBeCloseTo(Number(usage?.cost), 9);
    });
  });

  describe('records of retried and bounded calls', () => {
    it('gives two records after a JSON-mode retry, the response costing their sum', async () => {
      const emulator = await start({ emptyJson: [1] });
      const { client } = primaryRoute(emulator);

      const response = await client.complete({
        model: 'primary-v4-pro',
        messages: [{ role: 'user', content: 'Answer in JSON: is the build green?' }],
        jsonObject: true,
      });

      expect(response.calls).toHaveLength(2);
      const [first, second] = response.calls as [CallRecord, CallRecord];
      expect(first.priceSource).toBe('table');
      expect(second.pricedAs).toBe('primary-v4-pro');
      expect(response.costUsd).toBeCloseTo((first.costUsd as number) + (second.costUsd as number), 15);
      expect(client.costUsd()).toBeCloseTo(response.costUsd as number, 15);
    });

    it('records attempts: 2 for a call that met a 503 and was retried', async () => {
      const emulator = await start({ faults: [{ status: 503, times: 1, retryAfterMs: 10 }] });
      const { client } = primaryRoute(emulator);

      const response = await client.complete({ model: 'primary-flash', messages: question });

      expect(emulator.requests).toHaveLength(2);
      const record = onlyCall(response.calls);
      expect(record.attempts).toBe(2);
      expect(record.priceSource).toBe('table');
    });

    it("adds a bounded copy's costs to the parent's totalCostUsd, each priced by its model", async () => {
      const emulator = await start();
      const { client } = primaryRoute(emulator);

      const direct = await client.complete({ model: 'primary-flash', messages: question });
      const bounded = client.bounded(16);
      const capped = await bounded.complete({ model: 'primary-v4-pro', messages: question });

      expect(onlyCall(capped.calls).pricedAs).toBe('primary-v4-pro');
      expect(client.costUsd()).toBe(direct.costUsd);
      expect(bounded.costUsd()).toBe(capped.costUsd);
      expect(client.totalCostUsd()).toBeCloseTo((direct.costUsd as number) + (capped.costUsd as number), 15);
    });
  });

  describe('a hand-built endpoint (no pricing model, no price book)', () => {
    function handBuilt(emulator: Emulator) {
      const endpoint = new ChatEndpoint({
        provider: 'primary',
        baseUrl: emulator.url,
        thinking: false,
        prices: priceOf('primary-flash'),
      });
      const transport = new OpenAITransport({ apiKey: KEY, baseUrl: emulator.url });
      return new ChatAdapter(transport, { endpoint, disableThinking: true });
    }

    it('costs a primary-v4-pro call at its own table price, not at the endpoint prices', async () => {
      const emulator = await start();
      const client = handBuilt(emulator);

      const response = await client.complete({ model: 'primary-v4-pro', messages: question });

      const record = onlyCall(response.calls);
      expect(record).toMatchObject({ pricedAs: 'primary-v4-pro', priceSource: 'table' });
      const pro = costOf(priceOf('primary-v4-pro'), record.usage) as number;
      expect(record.costNanoUsd).toBe(Math.round(pro * 1e9));
      // Priced as flash it would be a third of the bill.
      expect(record.costUsd).toBeGreaterThan(
        2.9 * (costOf(priceOf('primary-flash'), record.usage) as number),
      );
    });

    it("costs a model the table does not know at the endpoint's prices", async () => {
      const emulator = await start({ faults: [replyFor('lab-model', labUsage)] });
      const client = handBuilt(emulator);

      const response = await client.complete({ model: 'lab-model', messages: question });

      const record = onlyCall(response.calls);
      expect(record).toMatchObject({ pricedAs: null, priceSource: 'endpoint' });
      expect(record.costNanoUsd).toBe(
        Math.round((costOf(priceOf('primary-flash'), labUsage) as number) * 1e9),
      );
    });
  });
});
