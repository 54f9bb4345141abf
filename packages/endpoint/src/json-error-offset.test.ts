import { describe, expect, it } from 'vitest';
import { jsonErrorOffset } from './json-error-offset.js';

describe('jsonErrorOffset', () => {
  it.each([
    ['{"a": 1, "b": [true, null, "x\\n", -1.5e3], "c": {}}', null],
    ['{"a": tru}', 6],
    ['{"a": 1,}', 8],
    ['{"a": 1', 7],
    ['[1] 2', 4],
    ['{"a": "line\nbreak"}', 6],
  ])('%j -> %s', (text, offset) => {
    expect(jsonErrorOffset(text)).toBe(offset);
    expect(offset === null).toBe(
      (() => {
        try {
          JSON.parse(text);
          return true;
        } catch {
          return false;
        }
      })(),
    );
  });
});
