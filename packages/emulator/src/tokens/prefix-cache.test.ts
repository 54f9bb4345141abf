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
  });

  describe('bounded by bytes', () => {
    // A block of one token `t0`..`t99` is counted as 256 bytes plus two a character.
    const blockBytes = (token: string) => 256 + 2 * token.length;

    it('forgets the prompts stored longest ago past maxBytes, keeping the newest', () => {
      const cache = new PrefixCache(1, 4096);
      for (let prompt = 0; prompt < 50; prompt += 1) {
        cache.lookupAndStore('m', tokens(6, `p${prompt}-`));
        expect(cache.bytes).toBeLessThanOrEqual(4096);
      }
      expect(cache.lookup('m', tokens(6, 'p49-'))).toBe(6);
      expect(cache.lookup('m', tokens(6, 'p48-'))).toBe(6);
      expect(cache.lookup('m', tokens(6, 'p0-'))).toBe(0);
    });

    it('keeps a prompt it hit newer than those it did not', () => {
      // Room for the model and two prompts of four blocks: a third one forgets the oldest.
      const cache = new PrefixCache(1, blockBytes('m') + 8 * blockBytes('a0') + 100);
      cache.lookupAndStore('m', tokens(4, 'a'));
      cache.lookupAndStore('m', tokens(4, 'b'));
      cache.lookupAndStore('m', tokens(4, 'a'));
      cache.lookupAndStore('m', tokens(4, 'c'));
      expect(cache.lookup('m', tokens(4, 'a'))).toBe(4);
      expect(cache.lookup('m', tokens(4, 'c'))).toBe(4);
      expect(cache.lookup('m', tokens(4, 'b'))).toBe(0);
    });

    it('keeps only the leading blocks of a prompt longer than the whole bound', () => {
      const cache = new PrefixCache(1, 1024);
      cache.lookupAndStore('m', tokens(100));
      expect(cache.bytes).toBeLessThanOrEqual(1024);
      // 1024 bytes hold the model's 258 and two blocks of 260.
      expect(cache.lookup('m', tokens(100))).toBe(2);
    });

    it('counts each block it holds, and nothing after clear()', () => {
      const cache = new PrefixCache(1, 10_000);
      cache.lookupAndStore('m', tokens(3));
      expect(cache.bytes).toBe(blockBytes('m') + 3 * blockBytes('t0'));
      cache.clear();
      expect(cache.bytes).toBe(0);
    });

    it('refuses a bound that is not a positive integer', () => {
      expect(() => new PrefixCache(4, 0)).toThrow(/maxCacheBytes must be a positive integer/);
      expect(() => new PrefixCache(4, Number.POSITIVE_INFINITY)).toThrow(RangeError);
    });
  });

  describe('bad block size', () => {
    it('throws a RangeError naming the option', () => {
      expect(() => new PrefixCache(0)).toThrow(/cacheBlockTokens must be a positive integer/);
      expect(() => new PrefixCache(1.5)).toThrow(RangeError);
    });
  });
});
