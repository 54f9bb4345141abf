import { describe, expect, it } from 'vitest';
import * as api from './index.js';

describe('@switchboard/endpoint public surface', () => {
  it('exports the contract names', () => {
    expect(api.ChatEndpoint.name).toBe('ChatEndpoint');
    expect(api.ConfigError.name).toBe('ConfigError');
    expect(Object.getPrototypeOf(api.ConfigError)).toBe(Error);
    for (const name of ['parseConfig', 'resolveModels', 'resolveChatEndpoint'] as const) {
      expect(typeof api[name]).toBe('function');
    }
  });

  it('exports the names of the second round', () => {
    expect(
      [
        api.explainResolution,
        api.parseConfigWithWarnings,
        api.isAdapterResolution,
        api.isKeyLikeVariable,
        api.isLoopbackAddress,
      ].map((value) => typeof value),
    ).toEqual(Array(5).fill('function'));
    expect(api.ALLOW_INSECURE_HTTP_ENV).toBe('SWITCHBOARD_ALLOW_INSECURE_HTTP');
  });

  it('exports the names of the third round', () => {
    expect(typeof api.loadConfig).toBe('function');
    expect(api.DEFAULT_CONFIG_FILE).toBe('switchboard.toml');
  });

  it('exports the constants with the contract values', () => {
    expect({
      DEFAULT_DETECTOR_MODEL: api.DEFAULT_DETECTOR_MODEL,
      DEFAULT_JUDGE_MODEL: api.DEFAULT_JUDGE_MODEL,
      PRIMARY_DEFAULT_BASE_URL: api.PRIMARY_DEFAULT_BASE_URL,
      GATEWAY_DEFAULT_BASE_URL: api.GATEWAY_DEFAULT_BASE_URL,
      SCRIPTED_FLAG_ENV: api.SCRIPTED_FLAG_ENV,
    }).toEqual({
      DEFAULT_DETECTOR_MODEL: 'primary-flash',
      DEFAULT_JUDGE_MODEL: 'primary-flash',
      PRIMARY_DEFAULT_BASE_URL: 'https://api.primary.example',
      GATEWAY_DEFAULT_BASE_URL: 'https://gateway.example/api/v1',
      SCRIPTED_FLAG_ENV: 'SWITCHBOARD_CLIENT',
    });
  });
});
