import { inspect } from 'node:util';
import { parseBaseUrl } from '@switchboard/adapter';
import { describe, expect, it } from 'vitest';
import { ConfigError } from './config-error.js';
import { parseConfig } from './parse-config.js';

function errorOf(input: unknown): ConfigError {
  try {
    parseConfig(input);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return error as ConfigError;
  }
  throw new Error('parseConfig accepted the input');
}

describe('parseConfig', () => {
  describe('valid configurations', () => {
    it('accepts an empty configuration', () => {
      expect(parseConfig({})).toEqual({});
    });

    it('accepts every models key with its type', () => {
      const config = {
        models: {
          chat_base_url: 'https://api.primary.example',
          chat_api_key_env: 'CUSTOM_API_KEY',
          thinking: true,
          hunter: 'primary-v4-pro',
          judge: 'primary-flash',
        },
      };
      expect(parseConfig(config)).toEqual(config);
    });

    it('accepts an empty models section', () => {
      expect(parseConfig({ models: {} })).toEqual({ models: {} });
    });

    it('accepts an object without a prototype', () => {
      const config = Object.assign(Object.create(null), { models: { thinking: false } });
      expect(parseConfig(config)).toEqual({ models: { thinking: false } });
    });

    it('does not change its input', () => {
      const config = { models: { hunter: ' primary-flash ' } };
      parseConfig(config);
      expect(config.models.hunter).toBe(' primary-flash ');
    });
  });

  describe('pass-through', () => {
    it('keeps unknown keys inside models unchanged', () => {
      const extra = { nested: [1, 2] };
      const parsed = parseConfig({ models: { hunter: 'primary-flash', embedder: 'other', extra } });
      expect(parsed.models).toEqual({ hunter: 'primary-flash', embedder: 'other', extra });
      expect((parsed.models as Record<string, unknown> | undefined)?.extra).toBe(extra);
    });

    it('keeps sections other than models unchanged, whatever their type', () => {
      const detectors = { enabled: ['injection'], budget: 3 };
      const parsed = parseConfig({ detectors, version: 2, notes: null });
      expect(parsed).toEqual({ detectors, version: 2, notes: null });
      expect((parsed as Record<string, unknown>).detectors).toBe(detectors);
    });
  });

  describe('trimming', () => {
    it('trims the model ids and the base URL', () => {
      const parsed = parseConfig({
        models: {
          hunter: ' primary-v4-pro ',
          judge: '\tprimary-flash\n',
          chat_base_url: ' https://api.primary.example/ ',
        },
      });
      expect(parsed.models).toEqual({
        hunter: 'primary-v4-pro',
        judge: 'primary-flash',
        chat_base_url: 'https://api.primary.example/',
      });
    });

    it('keeps a blank base URL as an empty, unset address rather than an error', () => {
      expect(parseConfig({ models: { chat_base_url: '   ' } }).models?.chat_base_url).toBe('');
    });
  });

  describe('the whole input', () => {
    it.each([
      [null, 'null'],
      [[], 'array'],
      ['models', 'string'],
      [3, 'number'],
      [undefined, 'undefined'],
      [new Date(0), 'Date'],
    ])('rejects %j: expected object, got %s', (input, received) => {
      const error = errorOf(input);
      expect(error.message).toBe(`config: expected object, got ${received}`);
      expect(error.path).toBe('config');
    });
  });

  describe('wrong types', () => {
    it('names the path, the expected type and the received type', () => {
      const error = errorOf({ models: { thinking: 'yes' } });
      expect(error.message).toBe('models.thinking: expected boolean, got string');
      expect(error.path).toBe('models.thinking');
    });

    it.each([
      ['models', [], 'object', 'array'],
      ['models', 'primary', 'object', 'string'],
      ['models', null, 'object', 'null'],
      ['models', new Map(), 'object', 'Map'],
    ])('rejects %s = %j: expected %s, got %s', (key, value, expected, received) => {
      expect(errorOf({ [key]: value }).message).toBe(`${key}: expected ${expected}, got ${received}`);
    });

    it.each([
      ['chat_base_url', 42, 'string', 'number'],
      ['chat_base_url', true, 'string', 'boolean'],
      ['chat_base_url', null, 'string', 'null'],
      ['chat_base_url', ['https://api.primary.example'], 'string', 'array'],
      ['chat_api_key_env', 1, 'string', 'number'],
      ['chat_api_key_env', false, 'string', 'boolean'],
      ['chat_api_key_env', {}, 'string', 'object'],
      ['thinking', 'true', 'boolean', 'string'],
      ['thinking', 1, 'boolean', 'number'],
      ['thinking', null, 'boolean', 'null'],
      ['thinking', Number.NaN, 'boolean', 'NaN'],
      ['hunter', 7, 'string', 'number'],
      ['hunter', {}, 'string', 'object'],
      ['hunter', false, 'string', 'boolean'],
      ['judge', [], 'string', 'array'],
      ['judge', null, 'string', 'null'],
      ['judge', 3.5, 'string', 'number'],
    ])('rejects models.%s = %j: expected %s, got %s', (key, value, expected, received) => {
      const error = errorOf({ models: { [key]: value } });
      expect(error.message).toBe(`models.${key}: expected ${expected}, got ${received}`);
      expect(error.path).toBe(`models.${key}`);
    });

    it("joins several problems with '; ', in key order", () => {
      const error = errorOf({ models: { thinking: 'yes', hunter: 1, judge: true } });
      expect(error.message).toBe(
        'models.thinking: expected boolean, got string; models.hunter: expected string, got number; models.judge: expected string, got boolean',
      );
      expect(error.path).toBe('models.thinking');
    });
  });

  describe('chat_base_url', () => {
    it.each(['ftp://x', 'api.primary.example', '/v1', 'http//broken'])(
      'rejects %j: not an absolute http(s) URL',
      (value) => {
        expect(errorOf({ models: { chat_base_url: value } }).message).toBe(
          `models.chat_base_url: expected an absolute http(s) URL, got ${JSON.stringify(value)}`,
        );
      },
    );

    it('gives the exact message for ftp://x', () => {
      expect(errorOf({ models: { chat_base_url: 'ftp://x' } }).message).toBe(
        'models.chat_base_url: expected an absolute http(s) URL, got "ftp://x"',
      );
    });

    it.each([
      'https://api.primary.example/v1',
      'https://API.PRIMARY.example/v1/',
      'http://eu.primary.example:8080/api/V1',
    ])('rejects the primary address %j with a version path, saying the platform rejects it', (value) => {
      const error = errorOf({ models: { chat_base_url: value } });
      expect(error.path).toBe('models.chat_base_url');
      expect(error.message).toMatch(/^models\.chat_base_url: expected an address without a version path/);
      expect(error.message).toContain('the primary platform rejects');
      // The address is shown as parseBaseUrl normalises it: host lowercased, no trailing slash.
      expect(error.message).toContain(`got ${JSON.stringify(parseBaseUrl(value))}`);
    });

    it('accepts a version path on an address that is not the primary platform', () => {
      const config = { models: { chat_base_url: 'https://gateway.example/api/v1' } };
      expect(parseConfig(config)).toEqual(config);
      expect(
        parseConfig({ models: { chat_base_url: 'http://127.0.0.1:9000/v1' } }).models?.chat_base_url,
      ).toBe('http://127.0.0.1:9000/v1');
    });
  });

  describe('chat_api_key_env', () => {
    it.each(['CUSTOM_API_KEY', '_KEY', 'key2', ''])('accepts %j', (value) => {
      expect(parseConfig({ models: { chat_api_key_env: value } }).models?.chat_api_key_env).toBe(value);
    });

    it.each([
      ['   ', 'a blank string'],
      ['MY KEY', 'a string containing whitespace'],
      [' PRIMARY_API_KEY', 'a string containing whitespace'],
      ['2FAST', 'a string with other characters'],
      ['KEY=VALUE', 'a string with other characters'],
    ])('rejects %j: got %s', (value, got) => {
      const error = errorOf({ models: { chat_api_key_env: value } });
      expect(error.message).toBe(
        `models.chat_api_key_env: expected an environment variable name (letters, digits and _, not starting with a digit), got ${got}`,
      );
      expect(error.path).toBe('models.chat_api_key_env');
    });

    it('never echoes the value, in case a key was pasted there by mistake', () => {
      const pasted = 'canary-secret-0123456789';
      const error = errorOf({ models: { chat_api_key_env: pasted } });
      expect(error.message).not.toContain(pasted);
      expect(inspect(error, { depth: 10 })).not.toContain(pasted);
      expect(JSON.stringify(error)).not.toContain(pasted);
    });
  });
});

describe('parseConfig: prices (issue 11)', () => {
  const entry = { cache_hit_per_m: 0.1, input_per_m: 1.5, output_per_m: 4 };

  it('accepts a table of model ids to prices per million tokens', () => {
    const config = { prices: { 'primary-flash': entry, 'team-model': { ...entry, cache_hit_per_m: 0 } } };
    expect(parseConfig(config)).toEqual(config);
  });

  it.each([
    [{ ...entry, input_per_m: '1.5' }, 'prices."primary-flash".input_per_m: expected number, got string'],
    [
      { cache_hit_per_m: 0, output_per_m: 1 },
      'prices."primary-flash".input_per_m: missing (expected number)',
    ],
    [{ ...entry, output_per_m: -1 }, 'prices."primary-flash".output_per_m: expected a finite number >= 0'],
    [
      { ...entry, output_per_m: Number.POSITIVE_INFINITY },
      'prices."primary-flash".output_per_m: expected a finite number, got inf',
    ],
    [
      { ...entry, cache_hit_per_m: Number.NaN },
      'prices."primary-flash".cache_hit_per_m: expected a finite number, got nan',
    ],
    [
      { ...entry, input_per_m: Number.NEGATIVE_INFINITY },
      'prices."primary-flash".input_per_m: expected a finite number, got -inf',
    ],
    ['cheap', 'prices."primary-flash": expected object, got string'],
  ])('refuses the entry %j, naming the path', (value, message) => {
    const error = errorOf({ prices: { 'primary-flash': value } });
    expect(error.message).toBe(message);
    expect(error.path).toBe(message.slice(0, message.indexOf(':')));
  });

  it('names a misspelled key beside the missing one it stands for, and keeps the other warnings', () => {
    const error = errorOf({
      models: { thinkng: true },
      prices: {
        'lab-model': { cache_hit_per_m: 0, input_per_m: 1, outptu_per_m: 4 },
        'gpt-4.1': { cache_hit_per_m: 0, input_per_m: 1, output_per_m: 4, input_per_mm: 2 },
      },
    });
    expect(error.message).toBe(
      [
        'prices."lab-model".output_per_m: missing (expected number)',
        'prices."lab-model".outptu_per_m: unknown key, did you mean "output_per_m"?',
        'models.thinkng: unknown key, did you mean "thinking"?',
        'prices."gpt-4.1".input_per_mm: unknown key, did you mean "input_per_m"?',
      ].join('; '),
    );
    expect(error.path).toBe('prices."lab-model".output_per_m');
  });

  it('names no unknown key of another entry beside a missing one', () => {
    const error = errorOf({
      prices: {
        a: { cache_hit_per_m: 0, input_per_m: 1 },
        b: { cache_hit_per_m: 0, input_per_m: 1, output_per_m: 4, outptu_per_m: 4 },
      },
    });
    expect(error.message).toBe(
      'prices.a.output_per_m: missing (expected number); prices.b.outptu_per_m: unknown key, did you mean "output_per_m"?',
    );
  });

  it.each([
    [[], 'prices: expected record, got array'],
    ['x', 'prices: expected record, got string'],
  ])('refuses prices = %j', (prices, message) => {
    expect(errorOf({ prices }).message).toBe(message);
  });

  it('refuses the model id __proto__, which would otherwise vanish unchecked', () => {
    const error = errorOf({ prices: JSON.parse(`{"__proto__": ${JSON.stringify(entry)}}`) });
    expect(error.message).toBe('prices."__proto__": expected a model id, got a reserved name');
  });
});
