import { describe, expect, it } from 'vitest';
import { nearestName } from './nearest-name.js';

const MODELS_KEYS = ['chat_base_url', 'chat_api_key_env', 'thinking', 'hunter', 'judge'];
const OPTIONS = ['limitUsd', 'limitCalls', 'window', 'store'];

describe('nearestName', () => {
  it.each([
    ['thinkng', MODELS_KEYS, 'thinking'],
    ['THINKING', MODELS_KEYS, 'thinking'],
    ['jduge', MODELS_KEYS, 'judge'],
    ['chat_api_keyenv', MODELS_KEYS, 'chat_api_key_env'],
    ['temperature', MODELS_KEYS, null],
    ['x'.repeat(10_000), MODELS_KEYS, null],
    // case ignored on both sides: a camelCase name found from any casing
    ['limitUSD', OPTIONS, 'limitUsd'],
    ['LIMITCALLS', OPTIONS, 'limitCalls'],
    ['limitcall', OPTIONS, 'limitCalls'],
    // short names: one edit at most
    ['stor', OPTIONS, 'store'],
    ['sto', OPTIONS, null],
    ['wndw', OPTIONS, null],
    // more than 2 edits is not near
    ['limitDollars', OPTIONS, null],
  ])('%j in %j -> %j', (name, known, expected) => {
    expect(nearestName(name, known)).toBe(expected);
  });

  it('prefers the nearer name, and the first of equally near ones', () => {
    expect(nearestName('abcde', ['abxyz', 'abcdx', 'abcdy'])).toBe('abcdx');
    expect(nearestName('abcdef', ['abcdxy', 'abcdef'])).toBe('abcdef');
  });

  it('is null for an empty list', () => {
    expect(nearestName('thinking', [])).toBeNull();
  });
});
