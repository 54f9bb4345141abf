import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { inspect } from 'node:util';
import { ChatAdapter, type ChatClient, type CompleteRequest } from '@switchboard/adapter';
import { priceOf } from '@switchboard/prices';
import { SCRIPTED_FLAGS, ScriptedChatClient } from '@switchboard/scripted';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { GATEWAY_DEFAULT_BASE_URL } from './adapter-rules.js';
import { ChatEndpoint } from './chat-endpoint.js';
import { ConfigError } from './config-error.js';
import { PRIMARY_DEFAULT_BASE_URL } from './primary-base-url.js';
import { resolveChatEndpoint } from './resolve-chat-endpoint.js';
import { isAdapterResolution } from './resolved-chat-endpoint.js';
import { SCRIPTED_FLAG_ENV } from './scripted-rules.js';
import type { SwitchboardConfig } from './switchboard-config.js';

const CANARY = 'sk-canary-7f3a9c0e5b1d';
const request: CompleteRequest = { model: 'primary-flash', messages: [{ role: 'user', content: 'hello' }] };

function freeze(environment: Record<string, string | undefined>): Record<string, string | undefined> {
  return Object.freeze({ ...environment });
}

function resolved(config: SwitchboardConfig | undefined, env: Record<string, string | undefined>) {
  const result = resolveChatEndpoint(config, { env: freeze(env) });
  expect(result).not.toBeNull();
  return result as { client: ChatClient; endpoint: ChatEndpoint };
}

function adapterOf(client: ChatClient): ChatAdapter {
  expect(client).toBeInstanceOf(ChatAdapter);
  return client as ChatAdapter;
}

const override: ChatClient = { complete: async () => ({ content: 'override' }) as never };

interface Received {
  method: string | undefined;
  url: string | undefined;
  headers: IncomingHttpHeaders;
  body: Record<string, unknown>;
}

// A loopback chat server: records every request and answers with one fixed completion.
const servers: Server[] = [];
async function startServer(): Promise<{ url: string; received: Received[] }> {
  const received: Received[] = [];
  const server = createServer((incoming, outgoing) => {
    let text = '';
    incoming.on('data', (chunk) => {
      text += chunk;
    });
    incoming.on('end', () => {
      received.push({
        method: incoming.method,
        url: incoming.url,
        headers: incoming.headers,
        body: text === '' ? {} : JSON.parse(text),
      });
      outgoing.writeHead(200, { 'content-type': 'application/json' });
      outgoing.end(
        JSON.stringify({
          id: 'completion-1',
          object: 'chat.completion',
          created: 0,
          model: 'primary-flash',
          choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content: 'pong' } }],
          usage: {
            prompt_tokens: 2_000_000,
            prompt_cache_hit_tokens: 1_000_000,
            prompt_cache_miss_tokens: 1_000_000,
            completion_tokens: 1_000_000,
          },
        }),
      );
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, received };
}

afterEach(async () => {
  await Promise.all(
    servers.splice(0).map((server) => new Promise<void>((resolve) => server.close(() => resolve()))),
  );
  vi.unstubAllEnvs();
});

describe('resolveChatEndpoint', () => {
  describe('rule 1: override', () => {
    it('returns the override itself with the scripted record', () => {
      const result = resolveChatEndpoint(undefined, { override, env: freeze({}) });
      expect(result?.client).toBe(override);
      expect(result?.endpoint).toBeInstanceOf(ChatEndpoint);
      expect({ ...result?.endpoint }).toEqual({
        provider: 'scripted',
        baseUrl: '',
        thinking: false,
        prices: null,
      });
    });

    it('rejects an override without a complete method', () => {
      expect(() => resolveChatEndpoint({}, { override: {} as ChatClient, env: freeze({}) })).toThrow(
        /override must be a chat client/,
      );
    });
  });

  describe('rule 2: scripted flag', () => {
    it.each([...SCRIPTED_FLAGS])('returns a scripted client for %s with the scripted record', (flag) => {
      const { client, endpoint } = resolved(undefined, { [SCRIPTED_FLAG_ENV]: flag });
      expect(client).toBeInstanceOf(ScriptedChatClient);
      expect({ ...endpoint }).toEqual({ provider: 'scripted', baseUrl: '', thinking: false, prices: null });
    });

    it('lowercases and trims the flag', async () => {
      const { client } = resolved(undefined, { SWITCHBOARD_CLIENT: '  DUMP-Only \n' });
      const response = await client.complete(request);
      expect(Array.isArray(JSON.parse(response.content ?? ''))).toBe(true);
    });

    it('gives the script of the flag: dump answers with findings at once', async () => {
      const dump = resolved(undefined, { SWITCHBOARD_CLIENT: 'dump' }).client;
      const scripted = resolved(undefined, { SWITCHBOARD_CLIENT: 'scripted' }).client;
      expect((await dump.complete(request)).toolCalls).toEqual([]);
      expect((await scripted.complete(request)).toolCalls).toHaveLength(1);
    });

    it('falls through for a value that is not a flag', () => {
      const { endpoint } = resolved(undefined, { SWITCHBOARD_CLIENT: 'replay', PRIMARY_API_KEY: CANARY });
      expect(endpoint.provider).toBe('primary');
      expect(resolveChatEndpoint(undefined, { env: freeze({ SWITCHBOARD_CLIENT: 'replay' }) })).toBeNull();
    });

    it('reads process.env when no env is given', () => {
      vi.stubEnv('SWITCHBOARD_CLIENT', 'unsafe');
      expect(resolveChatEndpoint()?.client).toBeInstanceOf(ScriptedChatClient);
    });
  });

  describe('rule 3: the pricing model', () => {
    it('prices the endpoint with the detector model, not the judge', () => {
      const config = { models: { hunter: 'primary-v4-pro', judge: 'primary-flash' } };
      expect(resolved(config, { PRIMARY_API_KEY: CANARY }).endpoint.prices).toEqual(
        priceOf('primary-v4-pro'),
      );
    });

    it('prices the endpoint with the default detector model without models.hunter', () => {
      expect(resolved({}, { PRIMARY_API_KEY: CANARY }).endpoint.prices).toEqual(priceOf('primary-flash'));
    });

    it('gives no prices for an unpriced detector model, so cost is null', () => {
      const { client, endpoint } = resolved(
        { models: { hunter: 'custom-model' } },
        { PRIMARY_API_KEY: CANARY },
      );
      expect(endpoint.prices).toBeNull();
      expect(endpoint.cost({ prompt_tokens: 10 })).toBeNull();
      expect(adapterOf(client).costUsd()).toBe(0);
    });

    it('prices the gateway endpoint with the detector model too', () => {
      const config = { models: { hunter: ' primary-v4-pro ' } };
      expect(resolved(config, { GATEWAY_API_KEY: CANARY }).endpoint.prices).toEqual(
        priceOf('primary-v4-pro'),
      );
    });
  });

  describe('rule 4: configured endpoint', () => {
    it('uses chat_base_url with the provider read from it', () => {
      const { client, endpoint } = resolved(
        { models: { chat_base_url: 'https://llm.internal.test/api' } },
        {},
      );
      expect({ ...endpoint }).toEqual({
        provider: 'custom',
        baseUrl: 'https://llm.internal.test/api',
        thinking: false,
        prices: priceOf('primary-flash'),
      });
      expect(adapterOf(client).endpoint).toBe(endpoint);
    });

    it('uses the primary default when only chat_api_key_env is set', () => {
      const { endpoint } = resolved({ models: { chat_api_key_env: 'CUSTOM_KEY' } }, { CUSTOM_KEY: CANARY });
      expect(endpoint.provider).toBe('primary');
      expect(endpoint.baseUrl).toBe(PRIMARY_DEFAULT_BASE_URL);
    });

    it('ignores PRIMARY_BASE_URL when only chat_api_key_env is set', () => {
      const { endpoint } = resolved(
        { models: { chat_api_key_env: 'CUSTOM_KEY' } },
        { CUSTOM_KEY: CANARY, PRIMARY_BASE_URL: 'http://127.0.0.1:1' },
      );
      expect(endpoint.baseUrl).toBe(PRIMARY_DEFAULT_BASE_URL);
    });

    it('still resolves when the key variable is unset (the key is then empty)', () => {
      const { client, endpoint } = resolved({ models: { chat_api_key_env: 'UNSET_KEY' } }, {});
      expect(endpoint.provider).toBe('primary');
      expect(client).toBeInstanceOf(ChatAdapter);
    });

    it('still resolves with chat_base_url alone and no key anywhere', () => {
      expect(
        resolved({ models: { chat_base_url: 'https://api.primary.example' } }, {}).endpoint.provider,
      ).toBe('primary');
    });

    it('counts an empty chat_base_url and chat_api_key_env as unset', () => {
      const config = { models: { chat_base_url: '  ', chat_api_key_env: '' } };
      expect(resolveChatEndpoint(config, { env: freeze({}) })).toBeNull();
    });

    it('strips trailing slashes from the base URL', () => {
      const { endpoint } = resolved({ models: { chat_base_url: ' https://llm.internal.test/api/// ' } }, {});
      expect(endpoint.baseUrl).toBe('https://llm.internal.test/api');
    });

    it('throws a ConfigError for a chat_base_url that is not an absolute http(s) URL', () => {
      expect(() =>
        resolveChatEndpoint({ models: { chat_base_url: 'ftp://x' } }, { env: freeze({}) }),
      ).toThrow(
        new ConfigError('models.chat_base_url: expected an absolute http(s) URL, got "ftp://x"', {
          path: 'models.chat_base_url',
        }),
      );
    });
  });

  describe('rule 4: provider detection', () => {
    it.each([
      ['https://api.primary.example', 'primary'],
      ['https://API.PRIMARY.EXAMPLE', 'primary'],
      ['https://gateway.example/api/v1', 'gateway'],
      ['https://GateWay.example/api/v1', 'gateway'],
      // A substring anywhere in the address, primary checked first (the seed's rule 4).
      ['https://primary-via-gateway.example', 'primary'],
      ['https://gateway.example/primary', 'primary'],
      ['https://my-gateway.internal/api/v1', 'gateway'],
      ['https://primary.evil.example', 'primary'],
      ['http://127.0.0.1:8080', 'custom'],
      ['https://llm.internal.test', 'custom'],
    ])('reads %s as %s', (chatBaseUrl, provider) => {
      expect(resolved({ models: { chat_base_url: chatBaseUrl } }, {}).endpoint.provider).toBe(provider);
    });
  });

  describe('rule 5: primary key', () => {
    it('uses the primary default address with provider primary', () => {
      const { client, endpoint } = resolved({}, { PRIMARY_API_KEY: CANARY });
      expect({ ...endpoint }).toEqual({
        provider: 'primary',
        baseUrl: PRIMARY_DEFAULT_BASE_URL,
        thinking: false,
        prices: priceOf('primary-flash'),
      });
      expect(adapterOf(client).endpoint).toBe(endpoint);
    });

    it('resolves without any configuration', () => {
      expect(resolved(undefined, { PRIMARY_API_KEY: CANARY }).endpoint.provider).toBe('primary');
    });

    it('uses PRIMARY_BASE_URL when set, without its trailing slashes, and calls it primary whatever it is', () => {
      const { endpoint } = resolved(
        {},
        { PRIMARY_API_KEY: CANARY, PRIMARY_BASE_URL: 'http://127.0.0.1:9/base//' },
      );
      expect(endpoint.baseUrl).toBe('http://127.0.0.1:9/base');
      expect(endpoint.provider).toBe('primary');
    });

    it('uses the default when PRIMARY_BASE_URL is empty', () => {
      const { endpoint } = resolved({}, { PRIMARY_API_KEY: CANARY, PRIMARY_BASE_URL: '' });
      expect(endpoint.baseUrl).toBe(PRIMARY_DEFAULT_BASE_URL);
    });

    it('throws a ConfigError naming PRIMARY_BASE_URL when it is not an absolute http(s) URL, without the key', () => {
      const env = freeze({ PRIMARY_API_KEY: CANARY, PRIMARY_BASE_URL: 'api.primary.example' });
      let error: unknown;
      try {
        resolveChatEndpoint({}, { env });
      } catch (thrown) {
        error = thrown;
      }
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as ConfigError).path).toBe('PRIMARY_BASE_URL');
      expect((error as ConfigError).message).toBe(
        'PRIMARY_BASE_URL: expected an absolute http(s) URL, got "api.primary.example"',
      );
      expect(inspect(error)).not.toContain(CANARY);
    });
  });

  describe('rule 6: gateway key', () => {
    it('uses the gateway default address, thinking off, and leaves thinking enabled on the adapter', () => {
      const { client, endpoint } = resolved({ models: { thinking: true } }, { GATEWAY_API_KEY: CANARY });
      expect({ ...endpoint }).toEqual({
        provider: 'gateway',
        baseUrl: GATEWAY_DEFAULT_BASE_URL,
        thinking: false,
        prices: priceOf('primary-flash'),
      });
      const adapter = adapterOf(client);
      expect(adapter.disableThinking).toBe(false);
      expect(adapter.endpoint).toBe(endpoint);
    });

    it('uses GATEWAY_BASE_URL when set, as the transport reads it', () => {
      const { endpoint } = resolved(
        {},
        { GATEWAY_API_KEY: CANARY, GATEWAY_BASE_URL: 'https://gw.internal.test/v2/' },
      );
      expect(endpoint.baseUrl).toBe('https://gw.internal.test/v2');
      expect(endpoint.provider).toBe('gateway');
    });

    it('uses the default when GATEWAY_BASE_URL is empty', () => {
      const { endpoint } = resolved({}, { GATEWAY_API_KEY: CANARY, GATEWAY_BASE_URL: '' });
      expect(endpoint.baseUrl).toBe(GATEWAY_DEFAULT_BASE_URL);
    });

    it.each(['gateway.example/api/v1', 'ftp://gateway.example', 'not a url'])(
      'returns null when the gateway transport cannot be built from GATEWAY_BASE_URL %j',
      (baseUrl) => {
        const env = freeze({ GATEWAY_API_KEY: CANARY, GATEWAY_BASE_URL: baseUrl });
        expect(resolveChatEndpoint({}, { env })).toBeNull();
      },
    );
  });

  describe('rule 7: no route', () => {
    it('returns null with an empty environment', () => {
      expect(resolveChatEndpoint({}, { env: freeze({}) })).toBeNull();
      expect(resolveChatEndpoint(undefined, { env: freeze({}) })).toBeNull();
    });

    it('returns null when every variable is empty', () => {
      const env = freeze({
        SWITCHBOARD_CLIENT: '',
        PRIMARY_API_KEY: '',
        PRIMARY_BASE_URL: '',
        GATEWAY_API_KEY: '',
        GATEWAY_BASE_URL: '',
      });
      expect(resolveChatEndpoint({ models: { thinking: true } }, { env })).toBeNull();
    });

    it('returns null when the only variables set are base URLs', () => {
      const env = freeze({
        PRIMARY_BASE_URL: 'https://api.primary.example',
        GATEWAY_BASE_URL: GATEWAY_DEFAULT_BASE_URL,
      });
      expect(resolveChatEndpoint({}, { env })).toBeNull();
    });
  });

  describe('rule 8: thinking', () => {
    it.each([
      ['configured endpoint', { chat_base_url: 'https://api.primary.example' }, {}],
      ['primary key', {}, { PRIMARY_API_KEY: CANARY }],
    ])('%s: thinking off by default and disabled on the adapter', (_route, models, env) => {
      const { client, endpoint } = resolved({ models }, env);
      expect(endpoint.thinking).toBe(false);
      expect(adapterOf(client).disableThinking).toBe(true);
    });

    it.each([
      ['configured endpoint', { chat_base_url: 'https://api.primary.example' }, {}],
      ['primary key', {}, { PRIMARY_API_KEY: CANARY }],
    ])('%s: models.thinking true leaves thinking on', (_route, models, env) => {
      const { client, endpoint } = resolved({ models: { ...models, thinking: true } }, env);
      expect(endpoint.thinking).toBe(true);
      expect(adapterOf(client).disableThinking).toBe(false);
    });

    it('models.thinking false disables thinking', () => {
      const { client, endpoint } = resolved({ models: { thinking: false } }, { PRIMARY_API_KEY: CANARY });
      expect(endpoint.thinking).toBe(false);
      expect(adapterOf(client).disableThinking).toBe(true);
    });
  });

  describe('precedence', () => {
    const config = { models: { chat_base_url: 'https://llm.internal.test' } };
    const everything = {
      SWITCHBOARD_CLIENT: 'dump',
      PRIMARY_API_KEY: CANARY,
      GATEWAY_API_KEY: CANARY,
    };

    it('override beats the scripted flag', () => {
      expect(resolveChatEndpoint(config, { override, env: freeze(everything) })?.client).toBe(override);
    });

    it('the scripted flag beats a configured endpoint', () => {
      const { client, endpoint } = resolved(config, everything);
      expect(client).toBeInstanceOf(ScriptedChatClient);
      expect(endpoint.provider).toBe('scripted');
    });

    it('a configured endpoint beats the primary key', () => {
      const { endpoint } = resolved(config, { PRIMARY_API_KEY: CANARY, GATEWAY_API_KEY: CANARY });
      expect(endpoint.provider).toBe('custom');
      expect(endpoint.baseUrl).toBe('https://llm.internal.test');
    });

    it('the primary key beats the gateway key', () => {
      const { endpoint } = resolved({}, { PRIMARY_API_KEY: CANARY, GATEWAY_API_KEY: CANARY });
      expect(endpoint.provider).toBe('primary');
    });

    it('the gateway key is used when nothing above it applies', () => {
      expect(resolved({}, { GATEWAY_API_KEY: CANARY }).endpoint.provider).toBe('gateway');
    });

    it('an empty PRIMARY_API_KEY falls through to the gateway', () => {
      const { endpoint } = resolved({}, { PRIMARY_API_KEY: '', GATEWAY_API_KEY: CANARY });
      expect(endpoint.provider).toBe('gateway');
    });

    it('an empty scripted flag falls through to the primary key', () => {
      const { endpoint } = resolved({}, { SWITCHBOARD_CLIENT: '', PRIMARY_API_KEY: CANARY });
      expect(endpoint.provider).toBe('primary');
    });

    it('an unbuildable gateway gives null even though PRIMARY_BASE_URL is set', () => {
      const env = freeze({
        PRIMARY_BASE_URL: 'https://api.primary.example',
        GATEWAY_API_KEY: CANARY,
        GATEWAY_BASE_URL: 'x',
      });
      expect(resolveChatEndpoint({}, { env })).toBeNull();
    });
  });

  describe('the resolving rule', () => {
    it.each([
      ['override', {}, {}, true],
      ['scripted', {}, { SWITCHBOARD_CLIENT: ' Script ' }, false],
      ['configured', { models: { chat_base_url: 'http://127.0.0.1:9' } }, {}, false],
      ['primary', {}, { PRIMARY_API_KEY: CANARY }, false],
      ['gateway', {}, { GATEWAY_API_KEY: CANARY }, false],
    ] as const)('names %s when that route resolves', (rule, config, env, withOverride) => {
      const options = withOverride ? { override, env: freeze({ ...env }) } : { env: freeze({ ...env }) };
      expect(resolveChatEndpoint(config as SwitchboardConfig, options)?.rule).toBe(rule);
    });
  });

  describe('configuration checks', () => {
    it('throws a ConfigError for a raw configuration of the wrong type on the routes that read it', () => {
      const config = { models: { thinking: 'yes' } } as unknown as SwitchboardConfig;
      expect(() => resolveChatEndpoint(config, { env: freeze({ PRIMARY_API_KEY: CANARY }) })).toThrow(
        'models.thinking: expected boolean, got string',
      );
      expect(() => resolveChatEndpoint(config, { env: freeze({}) })).toThrow(ConfigError);
    });

    it('returns the override and the scripted client without reading the configuration (rules 1 and 2)', () => {
      const config = { models: { thinking: 'yes' } } as unknown as SwitchboardConfig;
      expect(resolveChatEndpoint(config, { override, env: freeze({}) })?.client).toBe(override);
      expect(resolveChatEndpoint(config, { env: freeze({ SWITCHBOARD_CLIENT: 'dump' }) })?.rule).toBe(
        'scripted',
      );
    });

    it('throws a ConfigError for a chat_api_key_env that is not a variable name', () => {
      expect(() =>
        resolveChatEndpoint({ models: { chat_api_key_env: 'MY KEY' } }, { env: freeze({}) }),
      ).toThrow(ConfigError);
    });
  });

  describe('the environment', () => {
    it('is never mutated (a frozen environment works on every route)', () => {
      const routes: Array<[SwitchboardConfig, Record<string, string>]> = [
        [{}, { SWITCHBOARD_CLIENT: 'scripted' }],
        [{ models: { chat_api_key_env: 'CUSTOM_KEY' } }, {}],
        [{}, { PRIMARY_API_KEY: CANARY, PRIMARY_BASE_URL: 'http://127.0.0.1:9/' }],
        [{}, { GATEWAY_API_KEY: CANARY }],
        [{}, { GATEWAY_API_KEY: CANARY, GATEWAY_BASE_URL: 'x' }],
        [{}, {}],
      ];
      for (const [config, values] of routes) {
        const env = freeze(values);
        const before = JSON.stringify(env);
        expect(() => resolveChatEndpoint(config, { env })).not.toThrow();
        expect(JSON.stringify(env)).toBe(before);
      }
    });
  });

  describe('the key', () => {
    it.each([
      ['configured endpoint', { models: { chat_api_key_env: 'CUSTOM_KEY' } }, { CUSTOM_KEY: CANARY }],
      ['primary key', {}, { PRIMARY_API_KEY: CANARY }],
      ['gateway key', {}, { GATEWAY_API_KEY: CANARY }],
    ])(
      '%s: is in neither JSON.stringify nor util.inspect of the endpoint or the client',
      (_route, config, env) => {
        const { client, endpoint } = resolved(config, env);
        for (const value of [endpoint, client]) {
          expect(JSON.stringify(value) ?? '').not.toContain(CANARY);
          expect(inspect(value, { depth: 20, showHidden: true })).not.toContain(CANARY);
        }
        expect(Object.values(endpoint)).not.toContain(CANARY);
      },
    );

    it('the endpoint record is frozen', () => {
      const { endpoint } = resolved({}, { PRIMARY_API_KEY: CANARY });
      expect(Object.isFrozen(endpoint)).toBe(true);
    });
  });

  describe('on the wire', () => {
    it('primary route: sends PRIMARY_API_KEY as a bearer token and disables thinking', async () => {
      const server = await startServer();
      const { client } = resolved({}, { PRIMARY_API_KEY: CANARY, PRIMARY_BASE_URL: `${server.url}/` });
      const response = await client.complete(request);
      expect(response.content).toBe('pong');
      expect(server.received).toHaveLength(1);
      const [call] = server.received;
      expect(call?.method).toBe('POST');
      expect(call?.url).toBe('/chat/completions');
      expect(call?.headers.authorization).toBe(`Bearer ${CANARY}`);
      expect(call?.body.thinking).toEqual({ type: 'disabled' });
      expect(call?.body.model).toBe('primary-flash');
    });

    it('primary route: costs the call with the endpoint prices', async () => {
      const server = await startServer();
      const { client } = resolved({}, { PRIMARY_API_KEY: CANARY, PRIMARY_BASE_URL: server.url });
      await client.complete(request);
      expect(adapterOf(client).costUsd()).toBeCloseTo(1.774, 12);
    });

    it('primary route with models.thinking: sends no thinking field', async () => {
      const server = await startServer();
      const { client } = resolved(
        { models: { thinking: true } },
        { PRIMARY_API_KEY: CANARY, PRIMARY_BASE_URL: server.url },
      );
      await client.complete(request);
      expect(server.received[0]?.body).not.toHaveProperty('thinking');
    });

    it('configured route: sends the key of the variable named by chat_api_key_env', async () => {
      const server = await startServer();
      const { client, endpoint } = resolved(
        { models: { chat_base_url: server.url, chat_api_key_env: 'CUSTOM_KEY' } },
        { CUSTOM_KEY: CANARY, PRIMARY_API_KEY: 'other-key' },
      );
      expect(endpoint.provider).toBe('custom');
      await client.complete(request);
      expect(server.received[0]?.headers.authorization).toBe(`Bearer ${CANARY}`);
    });

    it('configured route without chat_api_key_env: sends PRIMARY_API_KEY', async () => {
      const server = await startServer();
      const { client } = resolved({ models: { chat_base_url: server.url } }, { PRIMARY_API_KEY: CANARY });
      await client.complete(request);
      expect(server.received[0]?.headers.authorization).toBe(`Bearer ${CANARY}`);
    });

    it('configured route with the key variable unset: sends no credentials', async () => {
      const server = await startServer();
      const { client } = resolved(
        { models: { chat_base_url: server.url, chat_api_key_env: 'UNSET_KEY' } },
        {},
      );
      await client.complete(request);
      expect(server.received[0]?.headers.authorization).toBeUndefined();
    });

    it('gateway route: sends GATEWAY_API_KEY and leaves thinking alone', async () => {
      const server = await startServer();
      const { client, endpoint } = resolved({}, { GATEWAY_API_KEY: CANARY, GATEWAY_BASE_URL: server.url });
      expect(endpoint.baseUrl).toBe(server.url);
      await client.complete(request);
      const [call] = server.received;
      expect(call?.headers.authorization).toBe(`Bearer ${CANARY}`);
      expect(call?.body).not.toHaveProperty('thinking');
    });
  });
});

describe('resolveChatEndpoint: base addresses (issues 9 and 10)', () => {
  it.each([
    ['https://custom.example/chat?via=primary', 'models.chat_base_url'],
    ['https://custom.example/chat#primary', 'models.chat_base_url'],
  ])(
    'refuses %j: a query or fragment would follow the path, and cannot name the provider',
    (chatBaseUrl, path) => {
      expect(() => resolveChatEndpoint({ models: { chat_base_url: chatBaseUrl } }, { env: {} })).toThrow(
        new ConfigError(
          'models.chat_base_url: expected an absolute http(s) URL without a query or fragment, got "https://custom.example/chat" with one',
          { path },
        ),
      );
    },
  );

  it('decides the provider on the normalised address', () => {
    const resolved = resolveChatEndpoint(
      { models: { chat_base_url: ' HTTPS://GATEWAY.Example/api/v1/ ' } },
      { env: {} },
    );
    expect(resolved?.endpoint).toMatchObject({
      provider: 'gateway',
      baseUrl: 'https://gateway.example/api/v1',
    });
  });

  it('refuses PRIMARY_BASE_URL with a query, naming the variable', () => {
    expect(() =>
      resolveChatEndpoint(
        {},
        { env: { PRIMARY_API_KEY: CANARY, PRIMARY_BASE_URL: 'https://api.primary.example/?k=1' } },
      ),
    ).toThrow(/^PRIMARY_BASE_URL: expected an absolute http\(s\) URL without a query or fragment/);
  });

  it('never echoes the password of an address that does not parse', () => {
    const error = (() => {
      try {
        resolveChatEndpoint(
          {},
          { env: { PRIMARY_API_KEY: CANARY, PRIMARY_BASE_URL: 'https://ops:pa55word@bad host' } },
        );
      } catch (thrown) {
        return thrown as Error;
      }
      throw new Error('expected a ConfigError');
    })();
    expect(ConfigError.isInstance(error)).toBe(true);
    expect(error.message).not.toContain('pa55word');
  });
});

describe('resolveChatEndpoint: the result, typed by rule (issue 9)', () => {
  it('gives adapter routes a ChatAdapter the caller uses without instanceof', async () => {
    const resolved = resolveChatEndpoint({}, { env: { PRIMARY_API_KEY: CANARY } });
    expect(isAdapterResolution(resolved)).toBe(true);
    if (resolved?.rule !== 'primary') throw new Error('expected the primary rule');
    // Type-checked: costUsd, bounded and listModels are on the client's type for this rule.
    expect(resolved.client.costUsd()).toBe(0);
    expect(resolved.client.bounded(8)).toBeInstanceOf(ChatAdapter);
    expect(typeof resolved.client.listModels).toBe('function');
  });

  it('gives the scripted route a ScriptedChatClient, and override its own client', () => {
    const scripted = resolveChatEndpoint({}, { env: { SWITCHBOARD_CLIENT: 'dump' } });
    expect(isAdapterResolution(scripted)).toBe(false);
    if (scripted?.rule !== 'scripted') throw new Error('expected the scripted rule');
    expect(scripted.client.calls).toEqual([]);
    const override = { complete: async () => ({}) as never };
    expect(isAdapterResolution(resolveChatEndpoint({}, { override }))).toBe(false);
    expect(isAdapterResolution(null)).toBe(false);
  });
});
