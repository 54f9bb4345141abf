import { describe, expect, it } from 'vitest';
import { ConfigError } from './config-error.js';
import { ALLOW_INSECURE_HTTP_ENV, isLoopbackAddress } from './insecure-http.js';
import { resolveChatEndpoint } from './resolve-chat-endpoint.js';

const KEY = 'sk-canary-insecure-9e1f';

function refusalOf(run: () => unknown): ConfigError {
  try {
    run();
  } catch (error) {
    if (ConfigError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('isLoopbackAddress', () => {
  it.each([
    'http://localhost:8080',
    'http://127.0.0.1',
    'http://127.8.9.10:1/x',
    'http://127.1',
    'http://0x7f.0.0.1',
    'http://[::1]:9',
  ])('counts %s as loopback', (address) => {
    expect(isLoopbackAddress(address)).toBe(true);
  });

  it.each([
    'http://some-host',
    'http://128.0.0.1',
    'http://localhost.evil.test',
    'http://127.0.0.1.evil.test',
    'http://[::2]',
    'http://10.0.0.1',
  ])('does not count %s', (address) => {
    expect(isLoopbackAddress(address)).toBe(false);
  });
});

describe('resolveChatEndpoint: a key over plain http (issue 10)', () => {
  const config = { models: { chat_base_url: 'http://some-host:8080/v1', chat_api_key_env: 'TEAM_API_KEY' } };
  const env = { TEAM_API_KEY: KEY };

  it('refuses a key bound for a host that is not loopback, saying how to allow it', () => {
    const error = refusalOf(() => resolveChatEndpoint(config, { env }));
    expect(error.path).toBe('models.chat_base_url');
    expect(error.message).toBe(
      'models.chat_base_url: expected an https:// address to send a key to (plain http:// only to a loopback address), ' +
        'got "http://some-host:8080/v1"; to allow it, set SWITCHBOARD_ALLOW_INSECURE_HTTP=1 or pass { allowInsecureHttp: true } to resolveChatEndpoint',
    );
    expect(error.message).not.toContain(KEY);
  });

  it.each([
    ['the code', { allowInsecureHttp: true }, {}],
    ['the environment (1)', {}, { [ALLOW_INSECURE_HTTP_ENV]: '1' }],
    ['the environment (true)', {}, { [ALLOW_INSECURE_HTTP_ENV]: ' TRUE ' }],
  ])('resolves when %s allows it', (_, options, extra) => {
    const resolved = resolveChatEndpoint(config, { ...options, env: { ...env, ...extra } });
    expect(resolved?.endpoint.baseUrl).toBe('http://some-host:8080/v1');
  });

  it.each(['0', 'false', 'yes', ''])('is not allowed by %j in the environment', (value) => {
    expect(() => resolveChatEndpoint(config, { env: { ...env, [ALLOW_INSECURE_HTTP_ENV]: value } })).toThrow(
      ConfigError,
    );
  });

  it('sends a key over http to a loopback address', () => {
    const local = { models: { chat_base_url: 'http://127.0.0.1:9', chat_api_key_env: 'TEAM_API_KEY' } };
    expect(resolveChatEndpoint(local, { env })?.rule).toBe('configured');
  });

  it('resolves when no key would be sent (the named variable is unset)', () => {
    expect(resolveChatEndpoint(config, { env: {} })?.endpoint.baseUrl).toBe('http://some-host:8080/v1');
  });

  it('holds for PRIMARY_BASE_URL too', () => {
    const error = refusalOf(() =>
      resolveChatEndpoint({}, { env: { PRIMARY_API_KEY: KEY, PRIMARY_BASE_URL: 'http://some-host' } }),
    );
    expect(error.path).toBe('PRIMARY_BASE_URL');
    expect(error.message).toContain(ALLOW_INSECURE_HTTP_ENV);
  });

  it('gives null for GATEWAY_BASE_URL, as for any gateway client that cannot be built (spec 7)', () => {
    const gateway = { GATEWAY_API_KEY: KEY, GATEWAY_BASE_URL: 'http://some-host/api/v1' };
    expect(resolveChatEndpoint({}, { env: gateway })).toBeNull();
    expect(resolveChatEndpoint({}, { env: gateway, allowInsecureHttp: true })?.rule).toBe('gateway');
  });
});
