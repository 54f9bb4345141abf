import { describe, expect, it } from 'vitest';
import { explainResolution } from './explain-resolution.js';
import { resolveChatEndpoint } from './resolve-chat-endpoint.js';

const KEY = 'sk-canary-explain-41b7';

describe('explainResolution', () => {
  describe('nothing set', () => {
    it('tries every rule, says why each did not apply, and what to set', () => {
      const explanation = explainResolution({}, { env: {} });
      expect(explanation).toEqual({
        rule: null,
        steps: [
          { rule: 'override', outcome: 'skipped', reason: 'no override client was given' },
          { rule: 'scripted', outcome: 'skipped', reason: 'SWITCHBOARD_CLIENT is unset or blank' },
          {
            rule: 'configured',
            outcome: 'skipped',
            reason: 'models.chat_base_url and models.chat_api_key_env are unset',
          },
          { rule: 'primary', outcome: 'skipped', reason: 'PRIMARY_API_KEY is unset or blank' },
          { rule: 'gateway', outcome: 'skipped', reason: 'GATEWAY_API_KEY is unset or blank' },
        ],
        warnings: [],
        message:
          'no chat endpoint: set PRIMARY_API_KEY or GATEWAY_API_KEY, name an endpoint in the config (models.chat_base_url), or set SWITCHBOARD_CLIENT=scripted',
      });
    });
  });

  describe('a blank GATEWAY_API_KEY', () => {
    it('reads it as the rules do: unset, not "set but cannot be built"', () => {
      const explanation = explainResolution(
        {},
        { env: { GATEWAY_API_KEY: '  ', GATEWAY_BASE_URL: 'nonsense' } },
      );
      expect(explanation.steps.at(-1)).toEqual({
        rule: 'gateway',
        outcome: 'skipped',
        reason: 'GATEWAY_API_KEY is unset or blank',
      });
      expect(explanation.message).toMatch(/^no chat endpoint: set PRIMARY_API_KEY/);
    });
  });

  describe('a gateway that cannot be built', () => {
    it('names the variable and what was expected, never the key', () => {
      const env = { GATEWAY_API_KEY: KEY, GATEWAY_BASE_URL: 'gateway.example/api/v1' };
      const explanation = explainResolution({}, { env });
      expect(resolveChatEndpoint({}, { env })).toBeNull();
      expect(explanation.rule).toBeNull();
      expect(explanation.steps.at(-1)?.outcome).toBe('failed');
      expect(explanation.message).toBe(
        'no chat endpoint: GATEWAY_API_KEY is set but the gateway client cannot be built: GATEWAY_BASE_URL: expected an absolute http(s) URL, got "gateway.example/api/v1"',
      );
      expect(JSON.stringify(explanation)).not.toContain(KEY);
    });
  });

  describe('an unrecognised SWITCHBOARD_CLIENT', () => {
    it('warns naming the accepted flags, in the "no chat endpoint" message too', () => {
      const explanation = explainResolution({}, { env: { SWITCHBOARD_CLIENT: 'Scriptd' } });
      const warning =
        'SWITCHBOARD_CLIENT="scriptd" is not a scripted flag (accepted: scripted, script, dump, dump-only, unsafe, unsafe-snippet)';
      expect(explanation.warnings).toEqual([warning]);
      expect(explanation.message).toContain(`; ${warning}`);
    });

    it('still warns when a live route resolves after it', () => {
      const explanation = explainResolution(
        {},
        { env: { SWITCHBOARD_CLIENT: 'scriptd', PRIMARY_API_KEY: KEY } },
      );
      expect(explanation.rule).toBe('primary');
      expect(explanation.warnings[0]).toMatch(/^SWITCHBOARD_CLIENT="scriptd" is not a scripted flag/);
    });
  });

  describe('chat_api_key_env naming an unset variable', () => {
    it('resolves rule configured and warns that the variable is unset', () => {
      const explanation = explainResolution(
        { models: { chat_api_key_env: 'MYKEY' } },
        { env: { PRIMARY_API_KEY: KEY } },
      );
      expect(explanation.rule).toBe('configured');
      expect(explanation.warnings).toEqual([
        'MYKEY is unset or blank: calls go without credentials and will likely fail with 401',
      ]);
    });
  });

  describe('a refusal', () => {
    it('reports the ConfigError resolveChatEndpoint would throw, as a step, without throwing', () => {
      const config = { models: { thinking: 'yes' } } as never;
      const explanation = explainResolution(config, { env: {} });
      expect(explanation.rule).toBeNull();
      expect(explanation.steps.at(-1)).toEqual({
        rule: 'configured',
        outcome: 'refused',
        reason: 'models.thinking: expected boolean, got string',
      });
      expect(explanation.message).toBe('models.thinking: expected boolean, got string');
    });
  });

  describe('a rule that resolves', () => {
    it('stops there and names it', () => {
      const explanation = explainResolution({}, { env: { PRIMARY_API_KEY: KEY, GATEWAY_API_KEY: KEY } });
      expect(explanation.rule).toBe('primary');
      expect(explanation.steps.map((step) => step.outcome)).toEqual([
        'skipped',
        'skipped',
        'skipped',
        'resolved',
      ]);
      expect(explanation.message).toBe('rule primary: PRIMARY_API_KEY is set: https://api.primary.example');
    });
  });
});
