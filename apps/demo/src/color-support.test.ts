import { describe, expect, it } from 'vitest';
import { colorSupport } from './color-support.js';

describe('colorSupport', () => {
  it.each([
    [{ isTTY: true }, {}, true],
    [{ isTTY: false }, {}, false],
    [{}, { FORCE_COLOR: '1' }, true],
    [{}, { FORCE_COLOR: '' }, true],
    [{ isTTY: true }, { FORCE_COLOR: '0' }, false],
    [{ isTTY: true }, { NO_COLOR: '1' }, false],
    [{ isTTY: true }, { NO_COLOR: '' }, true],
    [{}, { NO_COLOR: '1', FORCE_COLOR: '1' }, false],
  ])('%j with %j -> %s', (stream, env, expected) => {
    expect(colorSupport(stream, env)).toBe(expected);
  });
});
