import { describe, expect, it } from 'vitest';
import { PrefixCache } from './prefix-cache.js';

const tokens = (count: number, prefix = 't'): string[] =>
  Array.from({ length: count }, (_, i) => `${prefix}${i}`);

describe('PrefixCache', () => {
  describe('with the default block of 4 tokens', () => {
    it('has no hits for the first prompt', () => {
      expect(new PrefixCache().lookupAndStore('m', tokens(10))).toBe(0);
    });

    it('hits the full blocks of a repeated prompt, never its partial last block', () => {
      const cache = new PrefixCache();
      cache.lookupAndStore('m', tokens(10));
      expect(cache.lookupAndStore('m', tokens(10))).toBe(8);
    });

    it('hits the shared prefix rounded down to whole blocks', () => {
      const cache = new PrefixCache();
      cache.lookupAndStore('m', tokens(20));
      const longer = [...tokens(7), 'different', ...tokens(20)];
      expect(cache.lookupAndStore('m', longer)).toBe(4);
    });

    it('finds the longest prefix among several stored prompts', () => {
      const cache = new PrefixCache();
      cache.lookupAndStore('m', tokens(8));
      cache.lookupAndStore('m', [...tokens(16), 'x']);
      expect(cache.lookup('m', tokens(30))).toBe(16);
    });
  });

  describe('with exact tokens', () => {
    it('hits exactly the shared prefix', () => {
      const cache = new PrefixCache(1);
      cache.lookupAndStore('m', tokens(5));
      expect(cache.lookupAndStore('m', [...tokens(3), 'other'])).toBe(3);
    });
  });

  describe('separation and clearing', () => {
    it('keeps one cache per model', () => {
      const cache = new PrefixCache(1);
      cache.lookupAndStore('a', tokens(6));
      expect(cache.lookup('b', tokens(6))).toBe(0);
      expect(cache.lookup('a', tokens(6))).toBe(6);
    });

    it('does not store anything on lookup', () => {
      const cache = new PrefixCache(1);
      cache.lookup('m', tokens(6));
      expect(cache.lookup('m', tokens(6))).toBe(0);
    });

    it('forgets everything on clear', () => {
      const cache = new PrefixCache(1);
      cache.lookupAndStore('m', tokens(6));
      cache.clear();
      expect(cache.lookup('m', tokens(6))).toBe(0);
    });

    it('empties itself rather than grow past its node limit, keeping the newest prompt', () => {
      const cache = new PrefixCache(1, 10);
      cache.lookupAndStore('m', tokens(8, 'a'));
      cache.lookupAndStore('m', tokens(8, 'b'));
      expect(cache.lookup('m', tokens(8, 'a'))).toBe(0);
      expect(cache.lookup('m', tokens(8, 'b'))).toBe(8);
    });
  });

  describe('bad block size', () => {
    it('throws a RangeError naming the option', () => {
      expect(() => new PrefixCache(0)).toThrow(/cacheBlockTokens must be a positive integer/);
      expect(() => new PrefixCache(1.5)).toThrow(RangeError);
    });
  });
});
