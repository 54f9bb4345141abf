import { describe, expect, it } from 'vitest';
import { ConfigError } from './config-error.js';
import { isKeyLikeVariable } from './key-variable.js';
import { resolveChatEndpoint } from './resolve-chat-endpoint.js';

const SECRET = 'aws-canary-0c5e7a';

describe('isKeyLikeVariable', () => {
  it.each([
    'PRIMARY_API_KEY',
    'GATEWAY_API_KEY',
    'TEAM_API_KEY',
    'REVIEW_CHAT_KEY',
    'MY_KEY',
    'MYKEY',
    'CHAT_TOKEN',
    'team_api_key',
  ])('accepts %s', (name) => {
    expect(isKeyLikeVariable(name)).toBe(true);
  });

  it.each([
    'PATH',
    'HOME',
    'AWS_SECRET_ACCESS_KEY',
    'AWS_SESSION_TOKEN',
    'GITHUB_TOKEN',
    'GH_TOKEN',
    'NPM_TOKEN',
    'NODE_AUTH_TOKEN',
    'CI_JOB_TOKEN',
    'ACTIONS_RUNTIME_TOKEN',
    'AZURE_CLIENT_KEY',
    'GOOGLE_API_KEY',
    'STRIPE_SECRET_KEY',
    'SSH_PRIVATE_KEY',
    'DB_PASSWORD_KEY',
    'KEYRING',
  ])('refuses %s', (name) => {
    expect(isKeyLikeVariable(name)).toBe(false);
  });
});

describe('resolveChatEndpoint: where chat_api_key_env may point (issue 10)', () => {
  it.each(['AWS_SECRET_ACCESS_KEY', 'PATH'])(
    'refuses %s with a ConfigError that shows neither name nor value',
    (name) => {
      const config = { models: { chat_base_url: 'https://some-host.example', chat_api_key_env: name } };
      let error: unknown;
      try {
        resolveChatEndpoint(config, { env: { [name]: SECRET } });
      } catch (thrown) {
        error = thrown;
      }
      expect(ConfigError.isInstance(error)).toBe(true);
      const { message, path } = error as ConfigError;
      expect(path).toBe('models.chat_api_key_env');
      expect(message).toMatch(/^models\.chat_api_key_env: expected a name ending in KEY or TOKEN/);
      expect(message).toContain('allowKeyVariable');
      expect(message).not.toContain(SECRET);
      expect(message).not.toContain(name);
    },
  );

  it('refuses before looking at the address, so the secret goes nowhere', () => {
    const config = {
      models: { chat_base_url: 'http://some-host', chat_api_key_env: 'AWS_SECRET_ACCESS_KEY' },
    };
    expect(() => resolveChatEndpoint(config, { env: { AWS_SECRET_ACCESS_KEY: SECRET } })).toThrow(
      /^models\.chat_api_key_env: /,
    );
  });

  it.each([
    ['a list', ['DEPLOY_CREDENTIAL']],
    ['a test', (name: string) => name.startsWith('DEPLOY_')],
  ])('lets the code widen the rule with %s', (_, allowKeyVariable) => {
    const config = { models: { chat_api_key_env: 'DEPLOY_CREDENTIAL' } };
    const resolved = resolveChatEndpoint(config, { env: { DEPLOY_CREDENTIAL: SECRET }, allowKeyVariable });
    expect(resolved?.rule).toBe('configured');
    expect(() => resolveChatEndpoint(config, { env: {} })).toThrow(ConfigError);
  });
});
