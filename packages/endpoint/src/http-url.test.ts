import { describe, expect, it } from 'vitest';
import { endsWithVersionPath, isAbsoluteHttpUrl, withoutTrailingSlashes } from './http-url.js';

describe('isAbsoluteHttpUrl', () => {
  describe('accepted', () => {
    it.each(['https://api.primary.example', 'http://127.0.0.1:8080/base', 'HTTPS://Gateway.Example/api/v1'])(
      'accepts %s',
      (text) => {
        expect(isAbsoluteHttpUrl(text)).toBe(true);
      },
    );
  });

  describe('refused', () => {
    it.each(['ftp://x', 'api.primary.example', '/v1', '', 'not a url', 'file:///etc/hosts'])(
      'refuses %j',
      (text) => {
        expect(isAbsoluteHttpUrl(text)).toBe(false);
      },
    );
  });
});

describe('endsWithVersionPath', () => {
  describe('detection', () => {
    it('finds /v1 at the end of the path, with or without a trailing slash', () => {
      expect(endsWithVersionPath('https://api.primary.example/v1')).toBe(true);
      expect(endsWithVersionPath('https://api.primary.example/V2/')).toBe(true);
    });

    it('ignores a path without a version segment at its end', () => {
      expect(endsWithVersionPath('https://api.primary.example')).toBe(false);
      expect(endsWithVersionPath('https://api.primary.example/v1/extra')).toBe(false);
      expect(endsWithVersionPath('https://v1.primary.example/')).toBe(false);
    });
  });
});

describe('withoutTrailingSlashes', () => {
  describe('stripping', () => {
    it('removes every trailing / and nothing else', () => {
      expect(withoutTrailingSlashes('https://api.primary.example///')).toBe('https://api.primary.example');
      expect(withoutTrailingSlashes('https://gateway.example/api/v1')).toBe('https://gateway.example/api/v1');
    });
  });
});
