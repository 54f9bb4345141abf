import { ChatAdapter, type ChatMessage } from '@switchboard/adapter';
import type { Emulator, EmulatorOptions } from '@switchboard/emulator';
import { costOf, priceOf } from '@switchboard/prices';
import { bodyOf, closeTestEmulators, startTestEmulator } from '@switchboard/test-support';
import { afterEach, describe, expect, it } from 'vitest';
import { isAdapterResolution, resolveChatEndpoint, type SwitchboardConfig } from '../src/index.js';
import { failureOf } from './support/failure-of.js';

// The resolved client, end to end: resolveChatEndpoint builds a ChatAdapter over an OpenAITransport
// (resolution rules 4, 5, 6, 8), and every call below crosses a real loopback socket to the emulator.
// Only what the resolver decides is tested here: the rule picked, the address, the key sent, the
// thinking flag on the wire and the pricing model. How the adapter then behaves (retries, timeouts,
// JSON mode, model rejection, /models, bounded copies) has its one home in packages/adapter/test/wire.

const KEY = 'wire-test-key-e04f';
const question: ChatMessage[] = [{ role: 'user', content: 'Is the release branch ready to tag?' }];

afterEach(closeTestEmulators);

function start(options: EmulatorOptions = {}): Promise<Emulator> {
  return startTestEmulator({ key: KEY, ...options });
}

/** Resolves with a frozen environment and expects an adapter route (its client typed `ChatAdapter`). */
function resolveAdapter(config: SwitchboardConfig, env: Record<string, string | undefined>) {
  const resolved = resolveChatEndpoint(config, { env: Object.freeze({ ...env }) });
  if (!isAdapterResolution(resolved)) throw new Error(`expected an adapter route, got ${resolved?.rule}`);
  expect(resolved.client).toBeInstanceOf(ChatAdapter);
  return { ...resolved, adapter: resolved.client };
}

/** The primary route (rule 5) pointed at `baseUrl`. */
function primaryRoute(baseUrl: string, config: SwitchboardConfig = {}) {
  return resolveAdapter(config, { PRIMARY_API_KEY: KEY, PRIMARY_BASE_URL: baseUrl });
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
      expect(emulator.requests[0]?.body).toStrictEqual({
        model: 'primary-flash',
        messages: question,
        temperature: 0,
        thinking: { type: 'disabled' },
      });
    });

    it('drops a trailing slash of PRIMARY_BASE_URL, so calls reach /chat/completions', async () => {
      const emulator = await start();
      const { endpoint, adapter } = primaryRoute(`${emulator.url}//`);
      await adapter.complete({ model: 'primary-flash', messages: question });

      expect(endpoint.baseUrl).toBe(emulator.url);
      expect(emulator.requests[0]?.path).toBe('/chat/completions');
    });
  });

  describe('the primary route with models.thinking true', () => {
    it('records thinking on and sends no thinking field', async () => {
      const emulator = await start();
      const { endpoint, adapter } = primaryRoute(emulator.url, { models: { thinking: true } });
      await adapter.complete({ model: 'primary-flash', messages: question });

      expect(endpoint.thinking).toBe(true);
      expect(adapter.disableThinking).toBe(false);
      expect(bodyOf(emulator, 0)).not.toHaveProperty('thinking');
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
      // The cost rule, rounded to the nearest nano-dollar.
      expect(adapter.costNanoUsd()).toBe(
        Math.round((costOf(priceOf('primary-v4-pro'), adapter.usage[0]) as number) * 1e9),
      );
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

describe('resolveChatEndpoint: the transport of an adapter route in Node', () => {
  it('sends with NodeTransport (node:http): none of the headers fetch adds of its own', async () => {
    const emulator = await start();
    await primaryRoute(emulator.url).adapter.complete({ model: 'primary-flash', messages: question });
    const headers = emulator.requests[0]?.headers ?? {};
    expect(headers['user-agent']).toMatch(/^OpenAI\/JS /);
    expect(headers).not.toHaveProperty('sec-fetch-mode');
    expect(headers).not.toHaveProperty('accept-language');
  });

  it('reads HTTP_PROXY and NO_PROXY from options.env, as the rest of the resolution', async () => {
    const emulator = await start();
    // A proxy where nothing listens: the call fails unless NO_PROXY sends it directly.
    const proxied = {
      PRIMARY_API_KEY: KEY,
      PRIMARY_BASE_URL: emulator.url,
      HTTP_PROXY: 'http://127.0.0.1:9',
    };
    const through = resolveAdapter({}, proxied).adapter;
    const error = await failureOf(
      through.bounded(50).complete({ model: 'primary-flash', messages: question }),
    );
    expect(error).toMatchObject({ kind: 'connection' });
    expect(emulator.requests).toHaveLength(0);
    const direct = resolveAdapter({}, { ...proxied, NO_PROXY: '127.0.0.1' }).adapter;
    await direct.complete({ model: 'primary-flash', messages: question });
    expect(emulator.requests).toHaveLength(1);
  });

  it('stays on FetchTransport when a proxy variable names a proxy NodeTransport cannot speak', async () => {
    const emulator = await start();
    const env = { PRIMARY_API_KEY: KEY, PRIMARY_BASE_URL: emulator.url, HTTP_PROXY: 'socks5://127.0.0.1:9' };
    await resolveAdapter({}, env).adapter.complete({ model: 'primary-flash', messages: question });
    // fetch leaves proxies to Node, which reads none of these variables by default: sent directly.
    expect(emulator.requests[0]?.headers['sec-fetch-mode']).toBe('cors');
  });
});
