import { describe, expect, it } from 'vitest';
import { escapeHtml } from './escape-html.js';
import { printable } from './report-text.js';

// Every bidirectional control of Unicode (Bidi_Control): the embeddings and overrides U+202A-U+202E,
// the isolates U+2066-U+2069 and the marks U+200E, U+200F and U+061C.
const BIDI_CONTROLS = [...Array(0x10000).keys()]
  .map((code) => String.fromCharCode(code))
  .filter((character) => /\p{Bidi_Control}/u.test(character));

describe('printable and escapeHtml', () => {
  it('escape the right-to-left and Arabic letter marks, which reorder what a reader sees', () => {
    expect(printable('judge\u200f\u061c')).toBe('judge\\u200f\\u061c');
    expect(escapeHtml('<b>\u200f</b>')).toBe('&lt;b&gt;\\u200f&lt;/b&gt;');
  });

  it('escape every bidirectional control, and controls as before', () => {
    expect(BIDI_CONTROLS).toHaveLength(12);
    for (const character of BIDI_CONTROLS) {
      expect(printable(`a${character}b`)).not.toContain(character);
      expect(escapeHtml(`a${character}b`)).not.toContain(character);
    }
    expect(printable('a\u001b[2J\nb\tc\u2028')).toBe('a\\u001b[2J\\nb\\tc\\u2028');
  });
});
