import { describe, expect, it } from 'vitest';
import { SCRIPTED_FLAGS } from './scripted-flags.js';

describe('SCRIPTED_FLAGS', () => {
  describe('contents', () => {
    it('holds exactly the six flag values of spec 2.5', () => {
      expect(SCRIPTED_FLAGS).toEqual(
        new Set(['scripted', 'script', 'dump', 'dump-only', 'unsafe', 'unsafe-snippet']),
      );
    });
  });

  describe('changes', () => {
    it('refuses add, delete and clear', () => {
      const flags = SCRIPTED_FLAGS as Set<string>;
      expect(() => flags.add('other')).toThrow(TypeError);
      expect(() => flags.delete('dump')).toThrow(TypeError);
      expect(() => flags.clear()).toThrow(TypeError);
      expect(SCRIPTED_FLAGS.size).toBe(6);
      expect(SCRIPTED_FLAGS.has('other')).toBe(false);
    });
  });
});
