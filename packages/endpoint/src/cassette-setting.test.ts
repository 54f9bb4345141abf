import { describe, expect, it } from 'vitest';
import { cassetteSetting } from './cassette-setting.js';

/** What a ConfigError for `path` looks like. */
const refusal = (path: string, message?: string) =>
  expect.objectContaining({ name: 'ConfigError', path, ...(message ? { message } : {}) });

describe('cassetteSetting', () => {
  it('is null when neither the option nor SWITCHBOARD_CASSETTE is set (an empty variable counts as unset)', () => {
    expect(cassetteSetting(undefined, {})).toBeNull();
    expect(
      cassetteSetting(undefined, { SWITCHBOARD_CASSETTE: ' ', SWITCHBOARD_CASSETTE_PATH: 'x' }),
    ).toBeNull();
  });

  it('reads the mode (case and spaces aside) and the path from the environment', () => {
    const env = { SWITCHBOARD_CASSETTE: ' Replay ', SWITCHBOARD_CASSETTE_PATH: 'a.jsonl' };
    expect(cassetteSetting(undefined, env)).toEqual({
      mode: 'replay',
      path: 'a.jsonl',
      source: 'SWITCHBOARD_CASSETTE_PATH',
      env,
    });
  });

  it('prefers the option to the environment', () => {
    const setting = cassetteSetting({ mode: 'record', path: 'b.jsonl' }, { SWITCHBOARD_CASSETTE: 'replay' });
    expect(setting).toMatchObject({ mode: 'record', path: 'b.jsonl', source: 'options.cassette.path' });
  });

  it('names the variable or option field that is wrong', () => {
    expect(() => cassetteSetting(undefined, { SWITCHBOARD_CASSETTE: 'rewind' })).toThrow(
      refusal('SWITCHBOARD_CASSETTE', 'SWITCHBOARD_CASSETTE: expected record or replay, got "rewind"'),
    );
    expect(() => cassetteSetting(undefined, { SWITCHBOARD_CASSETTE: 'replay' })).toThrow(
      refusal('SWITCHBOARD_CASSETTE_PATH'),
    );
    expect(() => cassetteSetting({ mode: 'replay', path: '' }, {})).toThrow(refusal('options.cassette.path'));
    expect(() => cassetteSetting({ mode: 'replay', path: 'x', misses: 'ignore' }, {})).toThrow(
      refusal('options.cassette.misses'),
    );
  });
});
