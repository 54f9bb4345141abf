import { promptTokens } from '@switchboard/emulator';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  promptTokenBound,
  TEMPLATE_TOKENS_PER_MESSAGE,
  TEMPLATE_TOKENS_PER_REQUEST,
} from './prompt-token-bound.js';

describe('promptTokenBound', () => {
  it('counts the UTF-8 bytes of the JSON text plus the template allowances', () => {
    const messages = [{ role: 'user', content: 'héllo' }];
    const json = JSON.stringify([messages]);
    expect(promptTokenBound(messages, undefined)).toBe(
      Buffer.byteLength(json) + TEMPLATE_TOKENS_PER_MESSAGE + TEMPLATE_TOKENS_PER_REQUEST,
    );
    const tools = [{ type: 'function', function: { name: 'grep', parameters: { type: 'object' } } }];
    expect(promptTokenBound(messages, tools)).toBe(
      Buffer.byteLength(JSON.stringify([messages, tools])) +
        TEMPLATE_TOKENS_PER_MESSAGE +
        TEMPLATE_TOKENS_PER_REQUEST,
    );
  });

  it('is never below the UTF-8 bytes of any content, nor the emulator tokenizer count of the request', () => {
    const message = fc.record({
      role: fc.constantFrom('system', 'user', 'assistant'),
      content: fc.string({ unit: 'grapheme', maxLength: 200 }),
    });
    fc.assert(
      fc.property(fc.array(message, { minLength: 1, maxLength: 6 }), (messages) => {
        const bound = promptTokenBound(messages, undefined);
        const bytes = messages.reduce((sum, item) => sum + Buffer.byteLength(item.content), 0);
        expect(bound).toBeGreaterThanOrEqual(bytes);
        expect(bound).toBeGreaterThanOrEqual(promptTokens({ messages }).length);
      }),
      { numRuns: 300 },
    );
  });
});
