import { describe, expect, it } from 'vitest';
import { escapeHtml } from './escape-html.js';
import { boxTable, printable } from './report-text.js';

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

describe('boxTable', () => {
  const options = { rightAligned: [1], width: 30, color: false };

  it('wraps a first cell too wide at its spaces, the row going on over more lines', () => {
    expect(boxTable(['endpoint', 'calls'], [['primary http://127.0.0.1:42373', '13']], options)).toBe(
      [
        '┌────────────────────────┬───────┐',
        '│ endpoint               │ calls │',
        '├────────────────────────┼───────┤',
        '│ primary                │    13 │',
        '│ http://127.0.0.1:42373 │       │',
        '└────────────────────────┴───────┘',
      ].join('\n'),
    );
  });

  it('cuts a word longer than 40 characters, and a cell past three lines, with …', () => {
    const narrow = { ...options, width: 20 };
    expect(boxTable(['role', 'calls'], [['r'.repeat(50), '1']], narrow)).toContain(
      `│ ${'r'.repeat(39)}… │     1 │`,
    );
    const spaced = boxTable(['role', 'calls'], [['a b c d e f g h i j k l m n o p q r s t', '2']], narrow);
    expect(spaced.split('\n').slice(3, -1)).toEqual([
      '│ a b c d e f  │     2 │',
      '│ g h i j k l  │       │',
      '│ m n o p q r… │       │',
    ]);
  });
});
