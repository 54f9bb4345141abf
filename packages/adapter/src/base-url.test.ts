import { describe, expect, it } from 'vitest';
import { BaseUrlError, parseBaseUrl } from './base-url.js';
import { OpenAITransport } from './openai-transport.js';

function errorOf(value: unknown, name?: string): BaseUrlError {
  try {
    parseBaseUrl(value, name === undefined ? {} : { name });
  } catch (error) {
    if (BaseUrlError.isInstance(error)) return error;
    throw error;
  }
  throw new Error(`expected ${JSON.stringify(value)} to be refused`);
}

describe('parseBaseUrl', () => {
  describe('an absolute http(s) address', () => {
    it.each([
      ['https://api.primary.example', 'https://api.primary.example'],
      ['  https://api.primary.example//  ', 'https://api.primary.example'],
      ['https://gateway.example/api/v1/', 'https://gateway.example/api/v1'],
      ['HTTPS://API.Primary.Example:443/Base/', 'https://api.primary.example/Base'],
      ['http://127.0.0.1:8080', 'http://127.0.0.1:8080'],
      ['http://[::1]:9/x', 'http://[::1]:9/x'],
    ])('normalises %j to %j', (value, expected) => {
      expect(parseBaseUrl(value)).toBe(expected);
    });
  });

  describe('a value that is not one', () => {
    it.each([
      ['ftp://x', 'expected an absolute http(s) URL, got "ftp://x"'],
      ['api.primary.example', 'expected an absolute http(s) URL, got "api.primary.example"'],
      ['', 'expected an absolute http(s) URL, got ""'],
      [42, 'expected an absolute http(s) URL, got number'],
      [null, 'expected an absolute http(s) URL, got null'],
      [undefined, 'expected an absolute http(s) URL, got undefined'],
    ])('refuses %j, naming the field and what was expected', (value, reason) => {
      const error = errorOf(value, 'PRIMARY_BASE_URL');
      expect(error).toBeInstanceOf(TypeError);
      expect(error).toMatchObject({ name: 'BaseUrlError', field: 'PRIMARY_BASE_URL', reason });
      expect(error.message).toBe(`PRIMARY_BASE_URL: ${reason}`);
    });

    it.each([
      'sk-abcdefghijklmnopqrstuvwxyz0123456789',
      '  s3cr3t_value_of_the_key_0123  ',
      'ABCDEFGHIJKLMNOPQRSTUVWXYZ',
    ])('never echoes %j, a key pasted into the address field by mistake (issue 40.17)', (value) => {
      const key = value.trim();
      const error = errorOf(value, 'models.chat_base_url');
      expect(error.message).not.toContain(key);
      expect(error.message).not.toContain(key.slice(0, 8));
      expect(error.reason).toBe(
        `expected an absolute http(s) URL, got a value of ${key.length} characters with no ".", "/" or ":" (not shown: it looks like a key pasted into the address's place)`,
      );
    });

    it.each(['localhost', 'api.primary.example', 'gateway-example-host-name.internal'])(
      'still echoes %j, which names a host, not a key',
      (value) => {
        expect(errorOf(value).reason).toBe(`expected an absolute http(s) URL, got ${JSON.stringify(value)}`);
      },
    );

    it('echoes no more than 200 characters of a long value, and says how long it is', () => {
      const value = `api.${'x'.repeat(5000)}`;
      const error = errorOf(value);
      expect(error.reason).toBe(
        `expected an absolute http(s) URL, got ${JSON.stringify(value.slice(0, 200))}… (5004 characters)`,
      );
    });

    it('names the field baseUrl by default', () => {
      expect(errorOf('/chat').message).toBe('baseUrl: expected an absolute http(s) URL, got "/chat"');
    });
  });

  describe('a query or fragment', () => {
    it.each([
      'https://api.primary.example/?key=s3cr3t-value',
      'https://api.primary.example/#s3cr3t-value',
      'https://x.test?',
    ])('refuses %j without echoing what follows the path', (value) => {
      const error = errorOf(value);
      expect(error.reason).toMatch(
        /^expected an absolute http\(s\) URL without a query or fragment, got "https:/,
      );
      expect(error.message).not.toContain('s3cr3t-value');
    });
  });

  describe('credentials (user:password@)', () => {
    it.each([
      'https://ops:s3cr3t-value@api.primary.example',
      'https://ops:s3cr3t-value@api.primary .example',
      'ops:s3cr3t-value@api.primary.example',
      'ftp://ops:s3cr3t-value@x',
    ])('refuses %j and never shows the password, whether or not it parses', (value) => {
      const error = errorOf(value);
      expect(error.message).not.toContain('s3cr3t-value');
      expect(error.message).toMatch(/^baseUrl: expected an absolute http\(s\) URL/);
    });
  });
});

describe('OpenAITransport', () => {
  it('refuses its baseUrl with the same error and wording', () => {
    const create = () => new OpenAITransport({ apiKey: '', baseUrl: 'https://x.test/?a=1' });
    expect(create).toThrow(BaseUrlError);
    expect(create).toThrow('baseUrl: expected an absolute http(s) URL without a query or fragment');
  });
});
