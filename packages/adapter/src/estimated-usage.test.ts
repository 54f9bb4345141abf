import { describe, expect, it } from 'vitest';
import type { ChatMessage } from './chat-client.js';
import { estimatedUsage } from './estimated-usage.js';

const messages: ChatMessage[] = [{ role: 'user', content: 'Why did step three fail?' }];
// The JSON text's bytes plus 16 per message and 64 per request.
const prompt = Buffer.byteLength(JSON.stringify([messages]), 'utf8') + 16 + 64;

describe('estimatedUsage', () => {
  it('counts the prompt bound and every byte received', () => {
    expect(estimatedUsage({ messages, tools: undefined, extraBody: {} }, 500)).toEqual({
      prompt_tokens: prompt,
      completion_tokens: 500,
      total_tokens: prompt + 500,
    });
  });

  it('counts at most the max_tokens the request sent: the provider bills no more', () => {
    const capped = { messages, tools: undefined, extraBody: { max_tokens: 64 } };
    expect(estimatedUsage(capped, 500)).toMatchObject({ completion_tokens: 64, total_tokens: prompt + 64 });
    expect(estimatedUsage(capped, 40)).toMatchObject({ completion_tokens: 40 });
  });

  it('ignores a max_tokens that is not a positive whole number', () => {
    for (const max_tokens of [0, -5, 1.5, '64', null]) {
      expect(
        estimatedUsage({ messages, tools: undefined, extraBody: { max_tokens } }, 500).completion_tokens,
      ).toBe(500);
    }
  });
});
