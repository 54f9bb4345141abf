import { describe, expect, it } from 'vitest';
import { countTokens, tokenize, tokenSpans, truncateToTokens } from './tokenize.js';

describe('tokenize', () => {
  describe('splitting text', () => {
    it('makes each word and each punctuation character a token, dropping whitespace', () => {
      expect(tokenize('Hello, world!  How are you?')).toEqual([
        'Hello',
        ',',
        'world',
        '!',
        'How',
        'are',
        'you',
        '?',
      ]);
    });

    it('cuts a long run of letters into tokens of at most 12 characters', () => {
      expect(tokenize('abcdefghijklmnopqrstuvwxyz')).toEqual(['abcdefghijkl', 'mnopqrstuvwx', 'yz']);
    });

    it('keeps digits, underscores and non-Latin letters inside word tokens', () => {
      expect(tokenize('snake_case 42 Zürich')).toEqual(['snake_case', '42', 'Zürich']);
    });

    it('gives no tokens for empty or blank text', () => {
      expect(tokenize('')).toEqual([]);
      expect(countTokens(' \n\t ')).toBe(0);
    });
  });

  describe('countTokens', () => {
    it('counts the tokens tokenize returns', () => {
      const text = '{"answer": "yes", "findings": []}';
      expect(countTokens(text)).toBe(tokenize(text).length);
      expect(countTokens(text)).toBe(16);
    });
  });

  describe('tokenSpans', () => {
    it('gives offsets that slice each token out of the text', () => {
      const text = 'a  bc,d';
      expect(tokenSpans(text).map((span) => text.slice(span.start, span.end))).toEqual(tokenize(text));
    });
  });

  describe('truncateToTokens', () => {
    it('keeps exactly the first n tokens and the text between them', () => {
      expect(truncateToTokens('one two, three four', 3)).toBe('one two,');
    });

    it('returns the text unchanged when it has n tokens or fewer', () => {
      expect(truncateToTokens('one two', 2)).toBe('one two');
      expect(truncateToTokens('one two', 5)).toBe('one two');
    });

    it('returns the empty string for zero tokens', () => {
      expect(truncateToTokens('one two', 0)).toBe('');
    });
  });
});
