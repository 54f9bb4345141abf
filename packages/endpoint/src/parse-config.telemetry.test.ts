import { describe, expect, it } from 'vitest';
import { ConfigError } from './config-error.js';
import { parseConfig, parseConfigWithWarnings } from './parse-config.js';

describe('parseConfig [telemetry]', () => {
  it('accepts provider_name as one convention value or a table of them by provider', () => {
    expect(parseConfig({ telemetry: { provider_name: 'vendor.cloud_ai' } })).toEqual({
      telemetry: { provider_name: 'vendor.cloud_ai' },
    });
    const byProvider = { telemetry: { provider_name: { primary: 'vendor.one', gateway: 'router' } } };
    expect(parseConfig(byProvider)).toEqual(byProvider);
  });

  it.each([
    [{ provider_name: 'Vendor Cloud' }, 'telemetry.provider_name: expected a gen_ai.provider.name value'],
    [{ provider_name: 'v'.repeat(65) }, 'telemetry.provider_name: expected at most 64 characters'],
    [{ provider_name: 7 }, 'telemetry.provider_name: expected a gen_ai.provider.name string, or a table'],
    [
      { provider_name: { primary: '.x' } },
      'telemetry.provider_name.primary: expected a gen_ai.provider.name value',
    ],
    [{ provider_name: { scripted: 'x' } }, 'telemetry.provider_name: Unrecognized key: "scripted"'],
  ])('refuses %j, naming the path and what was expected', (telemetry, message) => {
    const parse = () => parseConfig({ telemetry });
    expect(parse).toThrow(ConfigError);
    expect(parse).toThrow(message);
  });

  it('refuses a [telemetry] that is not a table, and warns about an unknown key in it', () => {
    expect(() => parseConfig({ telemetry: 'on' })).toThrow('telemetry: expected object, got string');
    const { warnings } = parseConfigWithWarnings({ telemetry: { provider_nam: 'x' } });
    expect(warnings.map((warning) => warning.message)).toEqual([
      'telemetry.provider_nam: unknown key, did you mean "provider_name"?',
    ]);
  });
});
