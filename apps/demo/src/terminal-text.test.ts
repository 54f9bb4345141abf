import { describe, expect, it } from 'vitest';
import { safeJson, safeText } from './terminal-text.js';

describe('safeText', () => {
  it('shows escape sequences as visible text and keeps tabs and newlines', () => {
    expect(safeText('a\u001b[2Jb\u001b]52;c;SGk=\u0007c\td\ne')).toBe(
      'a\\u001b[2Jb\\u001b]52;c;SGk=\\u0007c\td\ne',
    );
  });

  it('neutralises carriage return, DEL, C1 controls and bidirectional overrides', () => {
    expect(safeText('x\ry\u007fz\u009b31m\u202eevil')).toBe('x\\u000dy\\u007fz\\u009b31m\\u202eevil');
  });

  it('neutralises every bidirectional control, the marks U+200E, U+200F and U+061C included', () => {
    expect(safeText('judge\u200f\u061c\u200e')).toBe('judge\\u200f\\u061c\\u200e');
    const bidi = [...Array(0x10000).keys()]
      .map((code) => String.fromCharCode(code))
      .filter((character) => /\p{Bidi_Control}/u.test(character));
    expect(bidi).toHaveLength(12);
    for (const character of bidi) expect(safeText(`a${character}b`)).not.toContain(character);
  });
});

describe('safeJson', () => {
  it('is valid JSON holding the exact text, without a raw control character', () => {
    const value = { content: 'a\u001b[2J\u009bb\u2028' };
    const text = safeJson(value);
    for (const character of ['\u001b', '\u009b', '\u2028']) expect(text).not.toContain(character);
    expect(JSON.parse(text)).toEqual(value);
  });
});
