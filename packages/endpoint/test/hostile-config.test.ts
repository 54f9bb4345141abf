import { ChatAdapter, type ChatMessage, OpenAITransport } from '@switchboard/adapter';
import { priceOf } from '@switchboard/prices';
import { sharedEmulator } from '@switchboard/test-support';
import { describe, expect, it, vi } from 'vitest';
import {
  ConfigError,
  GATEWAY_DEFAULT_BASE_URL,
  PRIMARY_DEFAULT_BASE_URL,
  parseConfig,
  resolveChatEndpoint,
  resolveModels,
  type SwitchboardConfig,
} from '../src/index.js';
import { failureOf } from './support/failure-of.js';

// Hostile configuration and environment (issue 5): wrong types, blank values, odd base URLs, a /v1
// suffix, padded model ids and a missing key variable each get the spec's result or a clear
// error naming what is wrong, never an unexplained exception.

const KEY = 'hostile-config-key-5d2b';
const question: ChatMessage[] = [{ role: 'user', content: 'Are the nightly jobs on schedule?' }];
const PRIMARY_ENV = Object.freeze({ PRIMARY_API_KEY: KEY });

const emulator = sharedEmulator({ key: KEY });

/** The error `run` throws, which must be a ConfigError. */
function configErrorOf(run: () => unknown): ConfigError {
  let thrown: unknown;
  try {
    run();
  } catch (error) {
    thrown = error;
  }
  expect(thrown).toBeInstanceOf(ConfigError);
  return thrown as ConfigError;
}

function resolved(config: unknown, env: Record<string, string | undefined>) {
  const result = resolveChatEndpoint(config as SwitchboardConfig, { env: Object.freeze({ ...env }) });
  if (result === null) throw new Error('expected a resolved endpoint, got null');
  return result;
}

function adapterOf(config: unknown, env: Record<string, string | undefined>): ChatAdapter {
  const { client } = resolved(config, env);
  expect(client).toBeInstanceOf(ChatAdapter);
  return client as ChatAdapter;
}

// Each value of a type other than the key's, with the name the message gives its type.
const wrongValues: Array<[unknown, string]> = [
  [42, 'number'],
  [Number.NaN, 'NaN'],
  [true, 'boolean'],
  [null, 'null'],
  [['https://api.primary.example'], 'array'],
  [{ value: 'primary-flash' }, 'object'],
  [new Date(0), 'Date'],
  [10n, 'bigint'],
  ['text', 'string'],
];

const keyTypes: Array<[path: string, expected: string, place: (value: unknown) => unknown]> = [
  ['config', 'object', (value) => value],
  ['models', 'object', (value) => ({ models: value })],
  ['models.chat_base_url', 'string', (value) => ({ models: { chat_base_url: value } })],
  ['models.chat_api_key_env', 'string', (value) => ({ models: { chat_api_key_env: value } })],
  ['models.thinking', 'boolean', (value) => ({ models: { thinking: value } })],
  ['models.hunter', 'string', (value) => ({ models: { hunter: value } })],
  ['models.judge', 'string', (value) => ({ models: { judge: value } })],
];

const typeCases = keyTypes.flatMap(([path, expected, place]) =>
  wrongValues
    .filter(([, type]) => type !== expected)
    .map(([value, type]) => [path, type, expected, place(value)] as const),
);

describe('hostile configuration and environment', () => {
  describe('each config key given each wrong type', () => {
    it.each(typeCases)(
      '%s given a value of type %s: a ConfigError "expected %s" naming the key',
      (path, type, expected, config) => {
        const message = `${path}: expected ${expected}, got ${type}`;
        for (const run of [
          () => parseConfig(config),
          () => resolveModels(config as SwitchboardConfig),
          () => resolveChatEndpoint(config as SwitchboardConfig, { env: PRIMARY_ENV }),
        ]) {
          const error = configErrorOf(run);
          expect(error.path).toBe(path);
          expect(error.message).toBe(message);
        }
      },
    );

    it.each([
      [
        'models.chat_base_url',
        { models: { chat_base_url: 'text' } },
        'expected an absolute http(s) URL, got "text"',
      ],
      [
        'models.chat_api_key_env',
        { models: { chat_api_key_env: 'MY-KEY' } },
        'expected an environment variable name (letters, digits and _, not starting with a digit), got a string with other characters',
      ],
    ])(
      '%s given a string of the wrong form: a ConfigError saying what was expected',
      (path, config, expected) => {
        const error = configErrorOf(() => resolveChatEndpoint(config, { env: PRIMARY_ENV }));
        expect(error.path).toBe(path);
        expect(error.message).toBe(`${path}: ${expected}`);
      },
    );

    it('names every bad key at once when several are wrong', () => {
      const error = configErrorOf(() => parseConfig({ models: { thinking: 'yes', hunter: 7 } }));
      expect(error.message).toBe(
        'models.thinking: expected boolean, got string; models.hunter: expected string, got number',
      );
    });

    it('still answers the override and the scripted flag with a bad configuration (rules 1 and 2 read none)', () => {
      const bad = { models: 'broken' } as unknown as SwitchboardConfig;
      expect(resolveChatEndpoint(bad, { env: { SWITCHBOARD_CLIENT: 'dump' } })?.rule).toBe('scripted');
    });
  });

  describe('whitespace-only values', () => {
    it('counts a blank chat_base_url as unset: the next rule applies', () => {
      expect(parseConfig({ models: { chat_base_url: '  \t ' } })).toEqual({ models: { chat_base_url: '' } });
      const result = resolved({ models: { chat_base_url: '   ' } }, PRIMARY_ENV);
      expect(result.rule).toBe('primary');
      expect(result.endpoint.baseUrl).toBe(PRIMARY_DEFAULT_BASE_URL);
    });

    it('rejects a blank chat_api_key_env with a ConfigError, without echoing it', () => {
      const error = configErrorOf(() => parseConfig({ models: { chat_api_key_env: '   ' } }));
      expect(error.path).toBe('models.chat_api_key_env');
      expect(error.message).toContain('got a blank string');
    });

    it('counts blank hunter and judge ids as unset: the defaults apply', () => {
      expect(resolveModels({ models: { hunter: ' ', judge: '\n\t' } })).toEqual([
        'primary-flash',
        'primary-flash',
      ]);
    });

    it.each([
      ['PRIMARY_API_KEY', { PRIMARY_API_KEY: '   ' }, null],
      ['GATEWAY_API_KEY', { GATEWAY_API_KEY: ' \t ' }, null],
      ['SWITCHBOARD_CLIENT', { SWITCHBOARD_CLIENT: '  ', PRIMARY_API_KEY: KEY }, 'primary'],
      ['PRIMARY_BASE_URL', { PRIMARY_BASE_URL: '  ', PRIMARY_API_KEY: KEY }, 'primary'],
    ])('counts a blank %s as unset (like an empty one)', (_, env, rule) => {
      expect(resolveChatEndpoint({}, { env })?.rule ?? null).toBe(rule);
    });

    it('gives the default address for a blank PRIMARY_BASE_URL', () => {
      expect(resolved({}, { PRIMARY_API_KEY: KEY, PRIMARY_BASE_URL: ' ' }).endpoint.baseUrl).toBe(
        PRIMARY_DEFAULT_BASE_URL,
      );
    });

    it('trims a key with surrounding whitespace: the platform accepts the call', async () => {
      const adapter = adapterOf({}, { PRIMARY_API_KEY: ` ${KEY}\n`, PRIMARY_BASE_URL: emulator().url });
      const response = await adapter.complete({ model: 'primary-flash', messages: question });
      expect(typeof response.content).toBe('string');
      expect(emulator().requests[0]?.headers.authorization).toBe('Bearer [redacted]');
    });

    it('sends no credentials when the variable named by chat_api_key_env is blank: a 401 auth error', async () => {
      const adapter = adapterOf(
        { models: { chat_base_url: emulator().url, chat_api_key_env: 'TEAM_API_KEY' } },
        { TEAM_API_KEY: '   ' },
      );
      const error = await failureOf(adapter.complete({ model: 'primary-flash', messages: question }));
      expect({ kind: error.kind, status: error.status }).toEqual({ kind: 'auth', status: 401 });
      expect(emulator().requests[0]?.headers.authorization).toBeUndefined();
    });
  });

  describe('base URLs', () => {
    it.each([
      ['surrounding spaces', ' https://api.primary.example ', 'https://api.primary.example'],
      ['trailing slashes', 'https://api.primary.example///', 'https://api.primary.example'],
      [
        'surrounding spaces and a trailing slash',
        '\thttps://custom.example/chat/ ',
        'https://custom.example/chat',
      ],
      [
        'a space inside the path (normalised percent-encoded, as it is sent)',
        'https://custom.example/my proxy',
        'https://custom.example/my%20proxy',
      ],
      [
        'an upper-case scheme and host (normalised)',
        'HTTPS://API.PRIMARY.EXAMPLE/',
        'https://api.primary.example',
      ],
      [
        'a /v1 suffix on an address that is not the primary',
        'http://127.0.0.1:8080/v1',
        'http://127.0.0.1:8080/v1',
      ],
    ])('chat_base_url with %s (%j): resolves to %j', (_, chatBaseUrl, baseUrl) => {
      expect(resolved({ models: { chat_base_url: chatBaseUrl } }, {}).endpoint.baseUrl).toBe(baseUrl);
    });

    it.each([
      ['a space in the host', 'https://api.primary .example'],
      ['no scheme', 'api.primary.example'],
      ['ftp', 'ftp://api.primary.example'],
      ['file', 'file:///var/run/chat.sock'],
      ['ws', 'ws://custom.example'],
      ['javascript', 'javascript:alert(1)'],
      ['no host', 'http://'],
    ])('chat_base_url with %s: a ConfigError naming the key and the address', (_, chatBaseUrl) => {
      const error = configErrorOf(() =>
        resolveChatEndpoint({ models: { chat_base_url: chatBaseUrl } }, { env: {} }),
      );
      expect(error.path).toBe('models.chat_base_url');
      expect(error.message).toBe(
        `models.chat_base_url: expected an absolute http(s) URL, got ${JSON.stringify(chatBaseUrl)}`,
      );
    });

    it.each([
      ['surrounding spaces', ' https://api.primary.example ', 'https://api.primary.example'],
      ['trailing slashes', 'https://api.primary.example//', 'https://api.primary.example'],
    ])('PRIMARY_BASE_URL with %s (%j): resolves to %j', (_, primaryBaseUrl, baseUrl) => {
      expect(resolved({}, { PRIMARY_API_KEY: KEY, PRIMARY_BASE_URL: primaryBaseUrl }).endpoint.baseUrl).toBe(
        baseUrl,
      );
    });

    it.each([
      ['a space in the host', 'https://api.primary .example'],
      ['no scheme', 'api.primary.example'],
      ['ftp', 'ftp://api.primary.example'],
      ['javascript', 'javascript:alert(1)'],
    ])('PRIMARY_BASE_URL with %s: a ConfigError naming the variable', (_, primaryBaseUrl) => {
      const error = configErrorOf(() =>
        resolveChatEndpoint({}, { env: { PRIMARY_API_KEY: KEY, PRIMARY_BASE_URL: primaryBaseUrl } }),
      );
      expect(error.path).toBe('PRIMARY_BASE_URL');
      expect(error.message).toBe(
        `PRIMARY_BASE_URL: expected an absolute http(s) URL, got ${JSON.stringify(primaryBaseUrl)}`,
      );
      expect(error.message).not.toContain(KEY);
    });

    it.each([
      ['a space in the host', 'https://gateway .example/api/v1'],
      ['no scheme', 'gateway.example/api/v1'],
      ['ftp', 'ftp://gateway.example'],
    ])('GATEWAY_BASE_URL with %s: null, the gateway client cannot be built (spec 7)', (_, gatewayBaseUrl) => {
      expect(
        resolveChatEndpoint({}, { env: { GATEWAY_API_KEY: KEY, GATEWAY_BASE_URL: gatewayBaseUrl } }),
      ).toBeNull();
    });

    it('GATEWAY_BASE_URL with trailing slashes: resolves without them', () => {
      const result = resolved(
        {},
        { GATEWAY_API_KEY: KEY, GATEWAY_BASE_URL: `${GATEWAY_DEFAULT_BASE_URL}//` },
      );
      expect(result.endpoint.baseUrl).toBe(GATEWAY_DEFAULT_BASE_URL);
    });
  });

  describe('credentials in a base URL', () => {
    const withCredentials = 'https://ops:hunter2-password@api.primary.example';

    it('chat_base_url with user:password@: a ConfigError that does not echo the password', () => {
      const error = configErrorOf(() =>
        resolveChatEndpoint({ models: { chat_base_url: withCredentials } }, { env: {} }),
      );
      expect(error.path).toBe('models.chat_base_url');
      expect(error.message).toBe(
        'models.chat_base_url: expected an absolute http(s) URL without credentials (user:password@), got one with them',
      );
    });

    it('PRIMARY_BASE_URL with user:password@: a ConfigError that does not echo the password', () => {
      const error = configErrorOf(() =>
        resolveChatEndpoint({}, { env: { PRIMARY_API_KEY: KEY, PRIMARY_BASE_URL: withCredentials } }),
      );
      expect(error.path).toBe('PRIMARY_BASE_URL');
      expect(error.message).not.toContain('hunter2-password');
    });

    it('GATEWAY_BASE_URL with user:password@: null, the gateway client cannot be built', () => {
      expect(
        resolveChatEndpoint({}, { env: { GATEWAY_API_KEY: KEY, GATEWAY_BASE_URL: withCredentials } }),
      ).toBeNull();
    });

    it('OpenAITransport refuses such an address with a TypeError that does not echo the password', () => {
      // One rule and one wording for base addresses, whichever way they arrive (issue 9).
      expect(() => new OpenAITransport({ apiKey: KEY, baseUrl: withCredentials })).toThrow(
        'baseUrl: expected an absolute http(s) URL without credentials (user:password@), got one with them',
      );
    });
  });

  describe('a /v1 suffix on the primary', () => {
    it('in chat_base_url: a ConfigError saying the primary platform rejects a version path (spec 7, 9.1)', () => {
      const error = configErrorOf(() =>
        resolveChatEndpoint({ models: { chat_base_url: 'https://api.primary.example/v1/' } }, { env: {} }),
      );
      expect(error.path).toBe('models.chat_base_url');
      expect(error.message).toBe(
        'models.chat_base_url: expected an address without a version path (the primary platform rejects one, e.g. https://api.primary.example), got "https://api.primary.example/v1"',
      );
    });

    it('in PRIMARY_BASE_URL: the same ConfigError up front, before any call is made (issue 9)', () => {
      const error = configErrorOf(() =>
        resolveChatEndpoint({}, { env: { PRIMARY_API_KEY: KEY, PRIMARY_BASE_URL: `${emulator().url}/v1/` } }),
      );
      expect(error.path).toBe('PRIMARY_BASE_URL');
      expect(error.message).toBe(
        `PRIMARY_BASE_URL: expected an address without a version path (the primary platform rejects one, e.g. https://api.primary.example), got "${emulator().url}/v1"`,
      );
      expect(emulator().requests).toHaveLength(0);
    });
  });

  describe('model ids with surrounding whitespace', () => {
    it('trims hunter and judge, prices the trimmed detector model, and the platform accepts it', async () => {
      const config = { models: { hunter: '  primary-v4-pro \n', judge: '\tprimary-flash ' } };
      expect(resolveModels(config)).toEqual(['primary-v4-pro', 'primary-flash']);
      const result = resolved(config, { PRIMARY_API_KEY: KEY, PRIMARY_BASE_URL: emulator().url });
      expect(result.endpoint.prices).toBe(priceOf('primary-v4-pro'));

      const [detector] = resolveModels(config);
      await (result.client as ChatAdapter).complete({ model: detector, messages: question });
      expect(emulator().requests[0]?.body).toMatchObject({ model: 'primary-v4-pro' });
    });

    it('a padded id passed straight to complete is sent as given, and the platform refuses it as a degradation', async () => {
      const adapter = adapterOf({}, { PRIMARY_API_KEY: KEY, PRIMARY_BASE_URL: emulator().url });
      const error = await failureOf(adapter.complete({ model: ' primary-flash ', messages: question }));
      expect({ kind: error.kind, status: error.status, degradation: error.degradation }).toEqual({
        kind: 'model_rejected',
        status: 400,
        degradation: true,
      });
    });
  });

  describe('an environment variable named by chat_api_key_env that does not exist', () => {
    it('still resolves (spec 5.2), and calls go without credentials: the platform answers 401, an auth error', async () => {
      const config = {
        models: { chat_base_url: emulator().url, chat_api_key_env: 'SWITCHBOARD_TEST_MISSING_KEY' },
      };
      // PRIMARY_API_KEY is set too: the named variable is used alone, with no fallback to it.
      const result = resolved(config, { PRIMARY_API_KEY: KEY });
      expect(result.rule).toBe('configured');
      expect(result.endpoint.provider).toBe('custom');

      const error = await failureOf(
        (result.client as ChatAdapter).complete({ model: 'primary-flash', messages: question }),
      );
      expect({ kind: error.kind, status: error.status, retryable: error.retryable }).toEqual({
        kind: 'auth',
        status: 401,
        retryable: false,
      });
      expect(error.message).toContain('no API key was given');
      expect(emulator().requests).toHaveLength(1);
      expect(emulator().requests[0]?.headers.authorization).toBeUndefined();
    });
  });

  describe('environment values and options of the wrong type', () => {
    it('counts a variable that is not a string as unset', () => {
      const env = { PRIMARY_API_KEY: 42, GATEWAY_API_KEY: { key: KEY } } as unknown as Record<string, string>;
      expect(resolveChatEndpoint({}, { env })).toBeNull();
    });

    it('treats null options like no options instead of throwing a TypeError', () => {
      // Both calls read process.env, so it is set here rather than left to the machine running the test.
      for (const [name, value] of Object.entries({
        SWITCHBOARD_CLIENT: '',
        PRIMARY_API_KEY: '',
        GATEWAY_API_KEY: KEY,
        GATEWAY_BASE_URL: emulator().url,
      })) {
        vi.stubEnv(name, value);
      }
      try {
        const withNull = () => resolveChatEndpoint({}, null as unknown as undefined);
        expect(withNull).not.toThrow();
        expect(withNull()?.rule).toBe('gateway');
        expect(resolveChatEndpoint({})?.rule).toBe('gateway');
      } finally {
        vi.unstubAllEnvs();
      }
    });

    it('rejects an override that is not a chat client with a TypeError saying what is expected', () => {
      expect(() => resolveChatEndpoint({}, { override: {} as never })).toThrow(
        'override must be a chat client with a complete(request) method',
      );
    });
  });
});
