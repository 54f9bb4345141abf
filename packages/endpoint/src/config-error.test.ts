import { describe, expect, it } from 'vitest';
import { ConfigError } from './config-error.js';

describe('ConfigError', () => {
  describe('fields', () => {
    it('is an Error named ConfigError carrying its path', () => {
      const error = new ConfigError('models.thinking: expected boolean, got string', {
        path: 'models.thinking',
      });
      expect(error).toBeInstanceOf(Error);
      expect(error.name).toBe('ConfigError');
      expect(error.path).toBe('models.thinking');
      expect(error.message).toBe('models.thinking: expected boolean, got string');
    });

    it("has path 'config' when none is given", () => {
      expect(new ConfigError('config: expected object, got array').path).toBe('config');
    });
  });

  describe('isInstance', () => {
    it('recognises ConfigErrors and nothing else', () => {
      expect(ConfigError.isInstance(new ConfigError('x'))).toBe(true);
      const lookalike = new Error('x');
      lookalike.name = 'ConfigError';
      expect(ConfigError.isInstance(lookalike)).toBe(false);
      expect(ConfigError.isInstance({ name: 'ConfigError' })).toBe(false);
    });

    it('recognises an error from another copy of the package by its global marker', () => {
      const foreign = Object.create(
        Object.defineProperty(
          Object.create(Error.prototype),
          Symbol.for('switchboard.endpoint.ConfigError'),
          {
            value: true,
          },
        ),
      );
      expect(ConfigError.isInstance(foreign)).toBe(true);
    });
  });
});
