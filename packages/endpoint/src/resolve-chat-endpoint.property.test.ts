import { inspect } from 'node:util';
import { ChatAdapter } from '@switchboard/adapter';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ConfigError } from './config-error.js';
import { explainResolution } from './explain-resolution.js';
import { resolveChatEndpoint } from './resolve-chat-endpoint.js';
import type { SwitchboardConfig } from './switchboard-config.js';

const RUNS = { numRuns: 500 };

/** A key nobody could print by chance: a fixed prefix and 12 to 40 printable characters. */
const apiKey = fc.stringMatching(/^[!-~]{12,40}$/).map((tail) => `sk-canary-${tail}`);
const padding = fc.constantFrom('', ' ', '\n', '\t ');

const baseUrl = fc.constantFrom(
  'https://api.primary.example',
  'https://gateway.example/api/v1/',
  'http://127.0.0.1:8080',
  'https://custom.example/chat',
);

/** The ways a key reaches resolveChatEndpoint: each route, with the key in its variable. */
const route = fc.oneof(
  fc
    .record({
      baseUrl,
      thinking: fc.boolean(),
      hunter: fc.constantFrom('primary-flash', 'primary-v4-pro', 'unpriced'),
    })
    .map(({ baseUrl: chatBaseUrl, thinking, hunter }) => ({
      config: { models: { chat_base_url: chatBaseUrl, chat_api_key_env: 'TEAM_API_KEY', thinking, hunter } },
      variable: 'TEAM_API_KEY',
      extra: {},
    })),
  // PRIMARY_BASE_URL names the primary platform, which refuses a version path up front.
  fc
    .option(
      baseUrl.filter((address) => !address.includes('/v1')),
      { nil: undefined },
    )
    .map((primaryBaseUrl) => ({
      config: {},
      variable: 'PRIMARY_API_KEY',
      extra: primaryBaseUrl === undefined ? {} : { PRIMARY_BASE_URL: primaryBaseUrl },
    })),
  fc.option(baseUrl, { nil: undefined }).map((gatewayBaseUrl) => ({
    config: {},
    variable: 'GATEWAY_API_KEY',
    extra: gatewayBaseUrl === undefined ? {} : { GATEWAY_BASE_URL: gatewayBaseUrl },
  })),
);

function renderings(value: unknown): string[] {
  const texts = [
    inspect(value, { depth: Number.POSITIVE_INFINITY, showHidden: true, getters: true }),
    String(value),
    JSON.stringify(value) ?? '',
  ];
  if (value instanceof Error)
    texts.push(value.message, String(value.stack), inspect(value.cause, { depth: 20 }));
  return texts;
}

describe('resolveChatEndpoint (property-based)', () => {
  describe('with any key in the environment', () => {
    it('never shows the key in the result, its client, a bounded copy of it, or its endpoint record', () => {
      fc.assert(
        fc.property(apiKey, padding, route, (key, pad, { config, variable, extra }) => {
          const env = Object.freeze({ ...extra, [variable]: `${pad}${key}${pad}` });
          const result = resolveChatEndpoint(config as SwitchboardConfig, { env });
          expect(result).not.toBeNull();
          const client = result?.client as ChatAdapter;
          expect(client).toBeInstanceOf(ChatAdapter);
          const explanation = explainResolution(config as SwitchboardConfig, { env });
          for (const exhibit of [result, client, client.bounded(32), result?.endpoint, explanation]) {
            for (const text of renderings(exhibit)) expect(text).not.toContain(key);
          }
        }),
        RUNS,
      );
    });

    it('never shows the key in the ConfigError of a bad configuration or PRIMARY_BASE_URL', () => {
      const bad = fc.oneof(
        fc.constant({ config: { models: { chat_base_url: 'not a url' } }, extra: {} }),
        fc.constant({ config: { models: { thinking: 'yes' } }, extra: {} }),
        fc.constant({ config: {}, extra: { PRIMARY_BASE_URL: 'api.primary.example' } }),
        fc.constant({ config: {}, extra: { PRIMARY_BASE_URL: 'https://ops:secret@api.primary.example' } }),
        fc.constant({ config: {}, extra: { PRIMARY_BASE_URL: 'http://some-host' } }),
        fc.constant({ config: { models: { chat_base_url: 'http://some-host' } }, extra: {} }),
        fc.constant({ config: { models: { chat_api_key_env: 'AWS_SECRET_ACCESS_KEY' } }, extra: {} }),
      );
      fc.assert(
        fc.property(apiKey, bad, (key, { config, extra }) => {
          const env = Object.freeze({ ...extra, PRIMARY_API_KEY: key, GATEWAY_API_KEY: key });
          let thrown: unknown;
          try {
            resolveChatEndpoint(config as SwitchboardConfig, { env });
          } catch (error) {
            thrown = error;
          }
          expect(thrown).toBeInstanceOf(ConfigError);
          const explanation = explainResolution(config as SwitchboardConfig, { env });
          for (const text of [...renderings(thrown), ...renderings(explanation)])
            expect(text).not.toContain(key);
        }),
        RUNS,
      );
    });
  });
});
