import { promptTokens } from '@switchboard/emulator';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  attemptPromptTokenBound,
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

describe('attemptPromptTokenBound', () => {
  it("measures the messages once per call: a later attempt of the call gets the first one's bound", () => {
    const messages = [{ role: 'user', content: 'hi' }];
    const first = attemptPromptTokenBound({ callId: 'call-1', messages, tools: undefined });
    expect(first).toBe(promptTokenBound(messages, undefined));
    // Changed behind the adapter's back: the call's later attempts keep the bound of its first...
    messages[0] = { role: 'user', content: 'a much longer message than before' };
    expect(attemptPromptTokenBound({ callId: 'call-1', messages, tools: undefined })).toBe(first);
    // ...while another call with the same array measures it again.
    const second = attemptPromptTokenBound({ callId: 'call-2', messages, tools: undefined });
    expect(second).toBe(promptTokenBound(messages, undefined));
    expect(second).toBeGreaterThan(first);
  });

  it('measures again for other tools, and every attempt without a call id', () => {
    const messages = [{ role: 'user', content: 'hi' }];
    const tools = [{ type: 'function', function: { name: 'grep', parameters: { type: 'object' } } }];
    const without = attemptPromptTokenBound({ callId: 'call-3', messages, tools: undefined });
    const withTools = attemptPromptTokenBound({ callId: 'call-3', messages, tools });
    expect(withTools).toBe(promptTokenBound(messages, tools));
    expect(withTools).toBeGreaterThan(without);
    const info = { messages, tools: undefined };
    expect(attemptPromptTokenBound(info)).toBe(without);
    messages.push({ role: 'user', content: 'and more' });
    expect(attemptPromptTokenBound(info)).toBe(promptTokenBound(messages, undefined));
  });
});
