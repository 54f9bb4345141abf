import { describe, expect, it } from 'vitest';
import { ConfigError } from './config-error.js';
import { parseConfig } from './parse-config.js';
import { DEFAULT_DETECTOR_MODEL, DEFAULT_JUDGE_MODEL, resolveModels } from './resolve-models.js';

describe('resolveModels', () => {
  describe('defaults', () => {
    it('gives both defaults without a configuration', () => {
      expect(resolveModels()).toEqual([DEFAULT_DETECTOR_MODEL, DEFAULT_JUDGE_MODEL]);
      expect(resolveModels()).toEqual(['primary-flash', 'primary-flash']);
    });

    it('gives both defaults without a models section', () => {
      expect(resolveModels(parseConfig({ other: { hunter: 'x' } }))).toEqual([
        DEFAULT_DETECTOR_MODEL,
        DEFAULT_JUDGE_MODEL,
      ]);
    });

    it('counts empty and blank ids as unset', () => {
      expect(resolveModels({ models: { hunter: '', judge: '   ' } })).toEqual([
        DEFAULT_DETECTOR_MODEL,
        DEFAULT_JUDGE_MODEL,
      ]);
    });
  });

  describe('configured ids', () => {
    it('gives models.hunter then models.judge', () => {
      expect(resolveModels({ models: { hunter: 'primary-v4-pro', judge: 'custom-judge' } })).toEqual([
        'primary-v4-pro',
        'custom-judge',
      ]);
    });

    it('sets each independently', () => {
      expect(resolveModels({ models: { judge: 'primary-v4-pro' } })).toEqual([
        DEFAULT_DETECTOR_MODEL,
        'primary-v4-pro',
      ]);
      expect(resolveModels({ models: { hunter: 'primary-v4-pro' } })).toEqual([
        'primary-v4-pro',
        DEFAULT_JUDGE_MODEL,
      ]);
    });

    it('trims the ids', () => {
      expect(resolveModels({ models: { hunter: ' primary-v4-pro\t', judge: '\nprimary-flash ' } })).toEqual([
        'primary-v4-pro',
        'primary-flash',
      ]);
    });
  });

  describe('bad input', () => {
    it('throws a ConfigError for an id that is not a string', () => {
      expect(() => resolveModels({ models: { hunter: 4 as never } })).toThrow(ConfigError);
      expect(() => resolveModels({ models: { hunter: 4 as never } })).toThrow(
        'models.hunter: expected string, got number',
      );
    });
  });
});
