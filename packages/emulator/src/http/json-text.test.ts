import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { jsonText } from './json-text.js';

// Strings of every kind: escapes, control characters, lone surrogates, and text like the placeholder.
const text = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.constantFrom('\u0000', '"\\u0000"', '\ud800', 'a"b\\c\n', ''),
);
const value = fc.letrec((tie) => ({
  json: fc.oneof(
    { depthSize: 'small' },
    text,
    fc.double(),
    fc.boolean(),
    fc.constant(null),
    fc.constant(undefined),
    fc.array(tie('json'), { maxLength: 5 }),
    fc.dictionary(text, tie('json'), { maxKeys: 5 }),
  ),
})).json;

describe('jsonText', () => {
  it('writes what JSON.stringify writes, whatever the value, long strings encoded once and read back', () => {
    // A threshold of a few characters sends most strings (keys are never replaced) through the remembered path.
    fc.assert(
      fc.property(value, fc.integer({ min: 1, max: 8 }), (input, long) => {
        const expected = JSON.stringify(input);
        expect(jsonText(input, long)).toBe(expected);
        // A second time, read back from what was remembered.
        expect(jsonText(input, long)).toBe(expected);
      }),
      { numRuns: 2_000 },
    );
  });

  it('writes a 50 KB answer inside a reply as JSON.stringify does, every time', () => {
    const answer = `Answer to: "why"\n${'the service returns a result \u2028 '.repeat(1_800)}`;
    const reply = {
      id: 'chatcmpl-1',
      choices: [{ index: 0, message: { role: 'assistant', content: answer } }],
    };
    for (let time = 0; time < 3; time += 1) expect(jsonText(reply)).toBe(JSON.stringify(reply));
  });
});
