import { describe, expect, it } from 'vitest';
import { describeType } from './describe-type.js';

describe('describeType', () => {
  it.each([
    ['a string', 'x', 'string'],
    ['a number', 1, 'number'],
    ['NaN', Number.NaN, 'NaN'],
    ['a boolean', false, 'boolean'],
    ['undefined', undefined, 'undefined'],
    ['null', null, 'null'],
    ['an array', [1], 'array'],
    ['a plain object', { a: 1 }, 'object'],
    ['a null-prototype object', Object.create(null), 'object'],
    ['a Date', new Date(0), 'Date'],
    ['a Map', new Map(), 'Map'],
    ['a class instance', new (class Widget {})(), 'Widget'],
    ['an anonymous class instance', new (class {})(), 'object'],
    ['a function', () => 1, 'function'],
    ['a bigint', 1n, 'bigint'],
  ])('names %s as %s', (_label, value, expected) => {
    expect(describeType(value)).toBe(expected);
  });
});
