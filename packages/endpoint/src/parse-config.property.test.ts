import { anythingAtAll } from '@switchboard/test-support';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ConfigError } from './config-error.js';
import { parseConfig } from './parse-config.js';
import type { SwitchboardConfig } from './switchboard-config.js';

const RUNS = { numRuns: 2_000 };

const wrongValue = fc.oneof(
  fc.jsonValue({ maxDepth: 1 }),
  fc.constantFrom(null, Number.NaN, Number.POSITIVE_INFINITY, 0, -1, true, false, [], {}),
  fc.date(),
  fc.bigInt(),
  anythingAtAll,
);

const whitespace = fc.string({ unit: fc.constantFrom(' ', '\t', '\n', '\u00a0', '\ufeff'), maxLength: 3 });

/** Base addresses, good and bad: URLs, version paths, spaces, other schemes, bare hosts. */
const baseUrl = fc.oneof(
  fc.webUrl(),
  fc.webUrl({ validSchemes: ['http', 'https', 'ftp', 'file', 'ws'] }),
  fc.constantFrom(
    'https://api.primary.example',
    'https://api.primary.example/',
    'https://api.primary.example/v1',
    'https://api.primary.example/v1/',
    'https://gateway.example/api/v1',
    'http://127.0.0.1:8080',
    'https://api.primary .example',
    'https://api.primary.example/some path',
    'api.primary.example',
    'javascript:alert(1)',
    'mailto:ops@primary.example',
    'file:///etc/passwd',
    'http://',
    '',
  ),
  fc.string(),
);

const withWhitespace = <T extends string>(arbitrary: fc.Arbitrary<T>) =>
  fc.tuple(whitespace, arbitrary, whitespace).map(([before, value, after]) => before + value + after);

const variableName = fc.oneof(
  fc.constantFrom('PRIMARY_API_KEY', 'CUSTOM_API_KEY', '_KEY', 'key1', '1KEY', 'MY-KEY', 'MY KEY', ' ', ''),
  fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_]{0,12}$/),
  fc.string(),
);

const modelId = fc.oneof(
  fc.constantFrom('primary-flash', 'primary-v4-pro', 'primary-v4.1-flash', '', 'constructor', '__proto__'),
  fc.string(),
);

/** A value of the right type most of the time, sometimes surrounded by whitespace, sometimes of any type. */
function field<T extends string>(good: fc.Arbitrary<T>): fc.Arbitrary<unknown> {
  return fc.oneof({ weight: 4, arbitrary: good }, { weight: 2, arbitrary: withWhitespace(good) }, wrongValue);
}

/** Configurations that are nearly right: every key optional, each sometimes of the wrong type. */
const nearConfig = fc
  .tuple(
    fc.record(
      {
        chat_base_url: field(baseUrl),
        chat_api_key_env: field(variableName),
        thinking: fc.oneof({ weight: 4, arbitrary: fc.boolean() }, wrongValue),
        hunter: field(modelId),
        judge: field(modelId),
      },
      { requiredKeys: [] },
    ),
    fc.dictionary(fc.string(), fc.jsonValue({ maxDepth: 1 }), { maxKeys: 2 }),
    fc.dictionary(fc.string(), fc.jsonValue({ maxDepth: 1 }), { maxKeys: 2 }),
    fc.oneof({ weight: 6, arbitrary: fc.constant('object') }, wrongValue),
  )
  .map(([models, extraModels, sections, shape]) => ({
    ...sections,
    models: shape === 'object' ? { ...extraModels, ...models } : shape,
  }));

/** Runs parseConfig and says how it ended: returned, threw a ConfigError, or threw something else. */
function outcome(
  input: unknown,
): { kind: 'returned'; value: SwitchboardConfig } | { kind: 'threw'; error: unknown } {
  try {
    return { kind: 'returned', value: parseConfig(input) };
  } catch (error) {
    return { kind: 'threw', error };
  }
}

function expectReturnsOrConfigError(input: unknown): void {
  const result = outcome(input);
  if (result.kind === 'returned') return;
  expect(result.error).toBeInstanceOf(ConfigError);
  expect(ConfigError.isInstance(result.error)).toBe(true);
  const error = result.error as ConfigError;
  expect(error.message).toMatch(/^(config|models)/);
  expect(typeof error.path).toBe('string');
}

describe('parseConfig (property-based)', () => {
  describe('for any input', () => {
    it('either returns or throws a ConfigError naming a path, for anything at all', () => {
      fc.assert(fc.property(anythingAtAll, expectReturnsOrConfigError), RUNS);
    });

    it('either returns or throws a ConfigError naming a path, for any JSON value', () => {
      fc.assert(fc.property(fc.jsonValue(), expectReturnsOrConfigError), RUNS);
    });

    it('either returns or throws a ConfigError naming a path, for nearly right configurations', () => {
      fc.assert(fc.property(nearConfig, expectReturnsOrConfigError), RUNS);
    });
  });

  describe('what it returns', () => {
    it('gives every known key its documented type, trimmed where the key is trimmed', () => {
      fc.assert(
        fc.property(nearConfig, (input) => {
          const result = outcome(input);
          if (result.kind !== 'returned') return;
          const models = result.value.models ?? {};
          for (const key of ['chat_base_url', 'chat_api_key_env', 'hunter', 'judge'] as const) {
            expect(models[key] === undefined || typeof models[key] === 'string').toBe(true);
          }
          for (const key of ['chat_base_url', 'hunter', 'judge'] as const) {
            expect(models[key]).toBe(models[key]?.trim());
          }
          expect(models.thinking === undefined || typeof models.thinking === 'boolean').toBe(true);
        }),
        RUNS,
      );
    });

    it('returns a configuration that parses again to the same value', () => {
      fc.assert(
        fc.property(nearConfig, (input) => {
          const result = outcome(input);
          if (result.kind !== 'returned') return;
          expect(parseConfig(result.value)).toEqual(result.value);
        }),
        RUNS,
      );
    });

    it('names the first bad key of a rejected models section in the message and path', () => {
      fc.assert(
        fc.property(nearConfig, (input) => {
          const result = outcome(input);
          if (result.kind !== 'threw') return;
          const error = result.error as ConfigError;
          expect(error.message).toContain(error.path);
        }),
        RUNS,
      );
    });
  });

  describe('hand-made objects that throw when read', () => {
    // fast-check itself cannot hold these (it looks into every value it generates), so they are listed.
    it.each([
      'a proxy whose traps throw',
      'a revoked proxy',
      'a throwing models getter',
      'a throwing key getter',
    ])('throws a ConfigError for %s, never the underlying error', (kind) => {
      const fail = () => {
        throw new Error('hostile');
      };
      const revoked = Proxy.revocable({}, {});
      revoked.revoke();
      const input =
        kind === 'a proxy whose traps throw'
          ? new Proxy({}, { get: fail, getPrototypeOf: fail, has: fail, ownKeys: fail })
          : kind === 'a revoked proxy'
            ? revoked.proxy
            : kind === 'a throwing models getter'
              ? Object.defineProperty({}, 'models', { get: fail, enumerable: true })
              : { models: Object.defineProperty({}, 'hunter', { get: fail, enumerable: true }) };
      expectReturnsOrConfigError(input);
      expect(outcome(input).kind).toBe('threw');
    });
  });
});
