import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ChatDelta } from './chat-stream.js';
import { StreamAssembly } from './stream-assembly.js';

describe('StreamAssembly', () => {
  it('counts the UTF-8 bytes of the text deltas as Buffer.byteLength does, lone surrogates included', () => {
    const piece = fc.string({ unit: 'binary', maxLength: 40 });
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 12 }), (texts) => {
        const assembly = new StreamAssembly('m');
        const deltas: ChatDelta[] = [];
        for (const text of texts) {
          assembly.accept(
            JSON.stringify({ choices: [{ index: 0, delta: { content: text } }] }),
            undefined,
            deltas,
          );
        }
        const expected = texts.reduce((sum, text) => sum + Buffer.byteLength(text, 'utf8'), 0);
        expect(assembly.outputBytes).toBe(expected);
      }),
      { numRuns: 500 },
    );
    const assembly = new StreamAssembly('m');
    for (const text of ['a', 'é', '€', '🚀', '\ud800', '\udc00x', '\ud83d\ude80\ud83d']) {
      assembly.accept(JSON.stringify({ choices: [{ index: 0, delta: { content: text } }] }), undefined, []);
    }
    expect(assembly.outputBytes).toBe(1 + 2 + 3 + 4 + 3 + 4 + 7);
  });
});
