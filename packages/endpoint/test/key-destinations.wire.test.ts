import { inspect } from 'node:util';
import type { ChatMessage } from '@switchboard/adapter';
import { closeTestEmulators, startTestEmulator } from '@switchboard/test-support';
import { afterEach, describe, expect, it } from 'vitest';
import {
  ConfigError,
  isAdapterResolution,
  type ResolveChatEndpointOptions,
  resolveChatEndpoint,
  type SwitchboardConfig,
} from '../src/index.js';

// Issue 10, observation 5: a configuration (untrusted input: pipelines read it from the repositories
// they scan) could send any variable anywhere, e.g. chat_api_key_env = "AWS_SECRET_ACCESS_KEY" with
// chat_base_url = "http://some-host", as a bearer token over plain http. Traffic goes only to the
// emulator on loopback; for a non-loopback address only the resolution is checked, nothing is sent.

const SECRET = 'aws-canary-secret-41c7b2';
const KEY = 'wire-destinations-key-93e0';
const FAR = 'http://198.51.100.7:8080';
const question: ChatMessage[] = [{ role: 'user', content: 'Which checks are still pending?' }];

afterEach(closeTestEmulators);

/** The ConfigError `resolveChatEndpoint` throws; fails the test when it resolves or throws anything else. */
function refusalOf(config: SwitchboardConfig, options: ResolveChatEndpointOptions): ConfigError {
  let resolved: unknown;
  try {
    resolved = resolveChatEndpoint(config, options);
  } catch (error) {
    expect(ConfigError.isInstance(error)).toBe(true);
    return error as ConfigError;
  }
  throw new Error(`expected a ConfigError, got a resolution: ${inspect(resolved)}`);
}

/** Every form a refusal may be printed in: message, stack, inspect and JSON. */
function printed(error: ConfigError): string {
  return [
    error.message,
    String(error.stack),
    inspect(error, { depth: Infinity, showHidden: true }),
    JSON.stringify(error),
  ].join('\n');
}

describe('resolveChatEndpoint, where a configuration may send a key (issue 10.5)', () => {
  describe('chat_api_key_env naming a variable that is not a key', () => {
    it.each([
      ['AWS_SECRET_ACCESS_KEY', SECRET],
      ['PATH', '/usr/local/bin:/usr/bin:/bin'],
    ])('refuses %s, even towards the emulator: nothing sent, the value never shown', async (name, value) => {
      const emulator = await startTestEmulator({ key: value });
      const env = { [name]: value, PRIMARY_API_KEY: KEY };
      for (const chat_base_url of [emulator.url, FAR]) {
        const error = refusalOf({ models: { chat_base_url, chat_api_key_env: name } }, { env });
        expect(error.path).toBe('models.chat_api_key_env');
        expect(error.message).toContain('expected a name ending in KEY or TOKEN');
        expect(error.message).toContain('allowKeyVariable');
        expect(printed(error)).not.toContain(value);
      }
      expect(emulator.requests).toHaveLength(0);
    });

    it('is refused even where plain http is allowed', () => {
      const config = { models: { chat_base_url: FAR, chat_api_key_env: 'AWS_SECRET_ACCESS_KEY' } };
      const env = { AWS_SECRET_ACCESS_KEY: SECRET, SWITCHBOARD_ALLOW_INSECURE_HTTP: '1' };
      const error = refusalOf(config, { env, allowInsecureHttp: true });
      expect(error.path).toBe('models.chat_api_key_env');
      expect(printed(error)).not.toContain(SECRET);
    });
  });

  describe('a key-like variable and a plain http:// address', () => {
    const far = { models: { chat_base_url: FAR, chat_api_key_env: 'TEAM_API_KEY' } };

    it('refuses a host that is not loopback, saying how to allow it, without the key', () => {
      const error = refusalOf(far, { env: { TEAM_API_KEY: KEY } });
      expect(error.path).toBe('models.chat_base_url');
      expect(error.message).toContain('expected an https:// address to send a key to');
      expect(error.message).toContain(
        'set SWITCHBOARD_ALLOW_INSECURE_HTTP=1 or pass { allowInsecureHttp: true }',
      );
      expect(printed(error)).not.toContain(KEY);
    });

    it.each([
      ['SWITCHBOARD_ALLOW_INSECURE_HTTP=1', { SWITCHBOARD_ALLOW_INSECURE_HTTP: '1' }, {}],
      ['allowInsecureHttp: true', {}, { allowInsecureHttp: true }],
    ])(
      'resolves a host that is not loopback when %s allows it (resolution only, nothing sent)',
      (_, extra, options) => {
        const resolved = resolveChatEndpoint(far, { ...options, env: { TEAM_API_KEY: KEY, ...extra } });
        expect(resolved).toMatchObject({ rule: 'configured', endpoint: { baseUrl: FAR } });
      },
    );

    it('sends the key over http to the emulator on loopback, no allowance needed', async () => {
      const emulator = await startTestEmulator({ key: KEY });
      const config = { models: { chat_base_url: emulator.url, chat_api_key_env: 'TEAM_API_KEY' } };
      const resolved = resolveChatEndpoint(config, { env: { TEAM_API_KEY: KEY } });
      if (!isAdapterResolution(resolved)) throw new Error(`expected an adapter route, got ${resolved?.rule}`);

      const answer = await resolved.client.complete({ model: 'primary-flash', messages: question });
      expect(answer.content).toEqual(expect.any(String));
      // The emulator checks the key (a wrong or missing one is a 401): an answer means it arrived.
      expect(emulator.requests).toHaveLength(1);
      expect(emulator.requests[0]?.headers.authorization).toBe('Bearer [redacted]');
    });

    it('sends a name code allows with allowKeyVariable to the emulator', async () => {
      const emulator = await startTestEmulator({ key: KEY });
      const config = { models: { chat_base_url: emulator.url, chat_api_key_env: 'TEAM_CREDENTIAL' } };
      const env = { TEAM_CREDENTIAL: KEY };
      expect(refusalOf(config, { env }).path).toBe('models.chat_api_key_env');
      const resolved = resolveChatEndpoint(config, { env, allowKeyVariable: ['TEAM_CREDENTIAL'] });
      if (!isAdapterResolution(resolved)) throw new Error(`expected an adapter route, got ${resolved?.rule}`);

      const answer = await resolved.client.complete({ model: 'primary-flash', messages: question });
      expect(answer.content).toEqual(expect.any(String));
      expect(emulator.requests).toHaveLength(1);
    });
  });
});
