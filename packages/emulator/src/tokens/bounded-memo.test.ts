import { describe, expect, it } from 'vitest';
import { BoundedMemo } from './bounded-memo.js';

describe('BoundedMemo', () => {
  it('makes a value once while its key is remembered', () => {
    const memo = new BoundedMemo<string>(2);
    let made = 0;
    const make = (value: string) => () => {
      made += 1;
      return value;
    };
    expect(memo.get('a', make('A'))).toBe('A');
    expect(memo.get('a', make('other'))).toBe('A');
    expect(made).toBe(1);
  });

  it('forgets the oldest key past its capacity, and makes it again', () => {
    const memo = new BoundedMemo<number>(2);
    const made: string[] = [];
    const get = (key: string) =>
      memo.get(key, () => {
        made.push(key);
        return key.length;
      });
    get('a');
    get('bb');
    get('ccc');
    get('bb');
    get('a');
    expect(made).toEqual(['a', 'bb', 'ccc', 'a']);
  });
});
