import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { ANYWHERE_KEY_LENGTH, MIN_REDACTED_KEY_LENGTH, redact, redactError } from './redact.js';

const LONG_KEY = 'sk-4f9c2a7e1b8d4c3fa6e0';

describe('redact', () => {
  it('leaves messages whole for a key too short to be told from their words', () => {
    expect(MIN_REDACTED_KEY_LENGTH).toBe(8);
    expect(redact('thinking is off', 'k')).toBe('thinking is off');
    expect(redact('the API key is invalid', 'key')).toBe('the API key is invalid');
    expect(redact('Bearer abc1234', 'abc1234')).toBe('Bearer abc1234');
  });

  it('replaces a shorter key only where it stands as a whole token', () => {
    const key = 'password1';
    expect(key.length).toBeLessThan(ANYWHERE_KEY_LENGTH);
    expect(redact('Authorization: Bearer password1', key)).toBe('Authorization: Bearer ***');
    expect(redact('"password1", key=password1&x', key)).toBe('"***", key=***&x');
    expect(redact('the password12 and mypassword1 fields', key)).toBe(
      'the password12 and mypassword1 fields',
    );
    expect(redact('test-key failed', 'test-key')).toBe('*** failed');
  });

  it('replaces a long key wherever it occurs, inside a run of letters and digits too', () => {
    expect(redact(`Bearer%20${LONG_KEY}x and ${LONG_KEY}`, LONG_KEY)).toBe('Bearer%20***x and ***');
  });

  it('replaces the key trimmed as well as given, and treats its characters literally', () => {
    expect(redact(`sent ${LONG_KEY} then ${LONG_KEY}\n`, `${LONG_KEY}\n`)).toBe('sent *** then ***');
    const odd = 'a.b*c+d?(e)[f]{g}|h^$\\/';
    expect(redact(`key ${odd} end; a-b-c-d`, odd)).toBe('key *** end; a-b-c-d');
  });

  it('leaves text alone for an empty or blank key', () => {
    expect(redact('anything', '')).toBe('anything');
    expect(redact('anything', ' \n')).toBe('anything');
  });
});

describe('redactError', () => {
  it('returns the error itself when it does not show the key, and for a key too short to redact', () => {
    const error = new Error('the API key is invalid');
    expect(redactError(error, LONG_KEY)).toBe(error);
    expect(redactError(error, 'key')).toBe(error);
    expect(redactError(new Error('thinking'), 'k')).toBeInstanceOf(Error);
  });

  it('stands in for an error whose inspected form shows the key, with the key replaced', () => {
    const error = new Error('outer', { cause: new Error(`Bearer ${LONG_KEY}`) });
    const standIn = redactError(error, LONG_KEY) as Error;
    expect(standIn).not.toBe(error);
    expect(inspect(standIn, { depth: Number.POSITIVE_INFINITY, showHidden: true })).not.toContain(LONG_KEY);
  });
});

describe('a key with a line break inside (a pasted CRLF)', () => {
  const key = 'sk-left-half-0123456789\r\nright-half-abcdefghij';
  const halves = ['sk-left-half-0123456789', 'right-half-abcdefghij'];
  const headerError = () => new TypeError(`Headers.append: "Bearer ${key}" is an invalid header value`);
  const shows = (text: string) => halves.filter((half) => text.includes(half));

  it('is replaced where it stands raw and where it stands escaped, as JSON and util.inspect write it', () => {
    expect(redact(`Bearer ${key} refused`, key)).toBe('Bearer *** refused');
    expect(redact(JSON.stringify({ authorization: `Bearer ${key}` }), key)).toBe(
      '{"authorization":"Bearer ***"}',
    );
  });

  it('shows in no inspected form of a header error, nor of one that holds it as its cause', () => {
    for (const error of [headerError(), new TypeError('fetch failed', { cause: headerError() })]) {
      const redacted = redactError(error, key);
      expect(redacted).not.toBe(error);
      const inspected = inspect(redacted, {
        depth: Number.POSITIVE_INFINITY,
        showHidden: true,
        getters: true,
      });
      expect(shows(inspected)).toEqual([]);
      expect(shows(JSON.stringify({ message: (redacted as Error).message }))).toEqual([]);
    }
  });
});
