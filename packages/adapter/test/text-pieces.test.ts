import { describe, expect, it } from 'vitest';
import { TextPieces } from '../src/text-pieces.js';

describe('TextPieces', () => {
  it('is null until a piece arrives, and an empty piece counts as the field arriving', () => {
    const text = new TextPieces();
    expect(text.text).toBe(null);
    text.add('');
    expect(text.text).toBe('');
  });

  it('gives the pieces joined in order, read at any point, across many batches', () => {
    const text = new TextPieces();
    const pieces: string[] = [];
    for (let index = 0; index < 2_000; index += 1) {
      const piece = index % 7 === 0 ? '' : ` w${index}`;
      pieces.push(piece);
      text.add(piece);
      if (index % 301 === 0) expect(text.text).toBe(pieces.join(''));
    }
    expect(text.text).toBe(pieces.join(''));
  });
});
