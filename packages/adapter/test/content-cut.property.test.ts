import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ContentCut } from '../src/content-cut.js';

const SEED = Number(process.env.FAST_CHECK_SEED ?? 4310);

/** Text of every kind a provider may send: quotes, backslashes, control and regex syntax characters, surrogates. */
const anyText = fc.string({
  unit: fc.oneof(
    fc.constantFrom(
      '"',
      '\\',
      '\n',
      '\u0000',
      '\u001f',
      '.',
      '*',
      '$',
      '^',
      '(',
      ']',
      '|',
      '/',
      '\ud800',
      'é',
    ),
    fc.string({ minLength: 1, maxLength: 1 }),
  ),
  maxLength: 12,
});

/** A chunk of a stream whose other fields hold texts of every kind too (they end up in the cut's bytes). */
const chunkOf = (id: string, model: string, text: string, extra: string) => ({
  id,
  object: 'chat.completion.chunk',
  model,
  choices: [{ index: 0, delta: { content: text }, finish_reason: null }],
  system_fingerprint: extra,
});

describe('ContentCut.match', () => {
  it('gives a chunk’s text exactly when the chunk parses as the learned one with that text (property)', () => {
    fc.assert(
      fc.property(
        anyText,
        anyText,
        anyText,
        fc.string({ minLength: 1, maxLength: 8 }),
        anyText,
        fc.nat(3),
        (id, model, extra, learned, candidate, spacing) => {
          const chunk = chunkOf(id, model, learned, extra);
          const data = JSON.stringify(chunk, null, spacing);
          const cut = ContentCut.of(data, JSON.parse(data));
          if (cut === null) return;
          // The same bytes around another text: matched when JSON needs no escape for it.
          const other = JSON.stringify(chunkOf(id, model, candidate, extra), null, spacing);
          const text = cut.match(other);
          const plain = candidate.length > 0 && JSON.stringify(candidate) === `"${candidate}"`;
          expect(text).toBe(plain ? candidate : null);
          // Whatever matches parses as the learned chunk with the text matched.
          for (const variant of [other, `${other} `, ` ${other}`, other.replace('"', "'"), other.slice(1)]) {
            const found = cut.match(variant);
            if (found !== null) expect(JSON.parse(variant)).toEqual(chunkOf(id, model, found, extra));
          }
          // Another field changed: never matched.
          expect(cut.match(JSON.stringify(chunkOf(`${id}x`, model, candidate, extra), null, spacing))).toBe(
            null,
          );
        },
      ),
      { numRuns: 400, seed: SEED, verbose: true },
    );
  });

  it('matches chunks whose cut is too long for one expression, by the same rule', () => {
    const extra = 'x'.repeat(20_000);
    const data = JSON.stringify(chunkOf('c1', 'm', 'hello', extra));
    const cut = ContentCut.of(data, JSON.parse(data)) as ContentCut;
    expect(cut).not.toBe(null);
    expect(cut.match(JSON.stringify(chunkOf('c1', 'm', ' world', extra)))).toBe(' world');
    expect(cut.match(JSON.stringify(chunkOf('c1', 'm', 'a"b', extra)))).toBe(null);
    expect(cut.match(JSON.stringify(chunkOf('c1', 'm', '', extra)))).toBe(null);
    expect(cut.match(JSON.stringify(chunkOf('c2', 'm', 'hello', extra)))).toBe(null);
  });
});
