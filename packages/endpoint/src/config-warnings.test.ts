import { describe, expect, it } from 'vitest';
import { ConfigError } from './config-error.js';
import { parseConfig, parseConfigWithWarnings } from './parse-config.js';

describe('parseConfigWithWarnings', () => {
  describe('an unknown key inside models', () => {
    it('warns with the nearest known key, and keeps the key', () => {
      const { config, warnings } = parseConfigWithWarnings({ models: { thinkng: true } });
      expect(config).toEqual({ models: { thinkng: true } });
      expect(warnings).toEqual([
        {
          path: 'models.thinkng',
          message: 'models.thinkng: unknown key, did you mean "thinking"?',
          suggestion: 'thinking',
        },
      ]);
    });

    it('lists the known keys when none is near', () => {
      const { warnings } = parseConfigWithWarnings({ models: { embedder: 'other' } });
      expect(warnings[0]?.message).toBe(
        'models.embedder: unknown key, known: chat_base_url, chat_api_key_env, thinking, hunter, judge',
      );
      expect(warnings[0]?.suggestion).toBeNull();
    });

    it('is an error with strict, naming every unknown key', () => {
      const input = { models: { thinkng: true, huntr: 'x' } };
      let error: unknown;
      try {
        parseConfig(input, { strict: true });
      } catch (thrown) {
        error = thrown;
      }
      expect(ConfigError.isInstance(error)).toBe(true);
      expect(error).toMatchObject({
        path: 'models.thinkng',
        message:
          'models.thinkng: unknown key, did you mean "thinking"?; models.huntr: unknown key, did you mean "hunter"?',
      });
      expect(parseConfig(input)).toEqual(input);
    });
  });

  describe('models keys without a [models] header', () => {
    it('warns that they belong under models', () => {
      const { warnings } = parseConfigWithWarnings({ thinking: true, chat_base_ur: 'https://x.test' });
      expect(warnings.map((warning) => warning.message)).toEqual([
        'thinking: a models key outside [models]; did you mean models.thinking?',
        'chat_base_ur: a models key outside [models]; did you mean models.chat_base_url?',
      ]);
    });

    it('warns about a section name one typo away, and not about other sections', () => {
      const { warnings } = parseConfigWithWarnings({ model: { hunter: 'x' }, detectors: { on: true } });
      expect(warnings.map((warning) => warning.message)).toEqual([
        'model: unknown section, did you mean "models"?',
      ]);
    });
  });

  describe('an unknown key inside a prices entry', () => {
    it('warns with the path quoted as in errors', () => {
      const prices = {
        'primary-flash': { cache_hit_per_m: 0, input_per_m: 1, output_per_m: 2, input_per_mm: 1 },
      };
      const { warnings } = parseConfigWithWarnings({ prices });
      expect(warnings.map((warning) => warning.message)).toEqual([
        'prices."primary-flash".input_per_mm: unknown key, did you mean "input_per_m"?',
        'prices."primary-flash": replaces the shipped price of primary-flash (cache hit / input / output 0.014 / 0.44 / 1.32 USD per million tokens, checked 2026-11-22); calls on it are priced from this entry',
      ]);
    });
  });

  describe('a clean configuration', () => {
    it('has no warnings', () => {
      expect(parseConfigWithWarnings({ models: { hunter: 'primary-flash' } }).warnings).toEqual([]);
    });
  });
});
