import { describe, expect, it } from 'vitest';
import type { ChatMessage } from './chat-client.js';
import { estimatedUsage, receivedOf } from './estimated-usage.js';

const messages: ChatMessage[] = [{ role: 'user', content: 'Why did step three fail?' }];
// The messages' JSON text at 4 bytes a token.
const prompt = Math.ceil(Buffer.byteLength(JSON.stringify(messages), 'utf8') / 4);
const request = { messages, tools: undefined, extraBody: {} };

describe('estimatedUsage', () => {
  it('counts the prompt text and the output received at 4 bytes a token', () => {
    expect(estimatedUsage(request, { bytes: 500, pieces: 3, promptTokens: null })).toEqual({
      prompt_tokens: prompt,
      completion_tokens: 125,
      total_tokens: prompt + 125,
    });
  });

  it('counts every text delta as at least one token', () => {
    expect(estimatedUsage(request, { bytes: 40, pieces: 30, promptTokens: null }).completion_tokens).toBe(30);
  });

  it("takes the prompt tokens an early usage reported, up to the prompt's bound", () => {
    expect(estimatedUsage(request, { bytes: 0, pieces: 0, promptTokens: 12 })).toEqual({
      prompt_tokens: 12,
      completion_tokens: 0,
      total_tokens: 12,
    });
    // The JSON text's bytes plus 16 a message and 64 a request: no more tokens than that.
    const bound = Buffer.byteLength(JSON.stringify(messages), 'utf8') + 16 + 64;
    expect(estimatedUsage(request, { bytes: 0, pieces: 0, promptTokens: 1e13 }).prompt_tokens).toBe(bound);
    expect(estimatedUsage(request, { bytes: 0, pieces: 0, promptTokens: 0 }).prompt_tokens).toBe(prompt);
  });

  it('counts at most the max_tokens the request sent: the provider bills no more', () => {
    const capped = { messages, tools: undefined, extraBody: { max_tokens: 64 } };
    expect(estimatedUsage(capped, { bytes: 5000, pieces: 0, promptTokens: null })).toMatchObject({
      completion_tokens: 64,
    });
    expect(estimatedUsage(capped, { bytes: 160, pieces: 0, promptTokens: null })).toMatchObject({
      completion_tokens: 40,
    });
  });

  it('ignores a max_tokens that is not a positive whole number', () => {
    for (const max_tokens of [0, -5, 1.5, '64', null]) {
      const estimate = estimatedUsage(
        { messages, tools: undefined, extraBody: { max_tokens } },
        { bytes: 2000, pieces: 0, promptTokens: null },
      );
      expect(estimate.completion_tokens).toBe(500);
    }
  });
});

describe('receivedOf', () => {
  it("counts a plain reply's content, reasoning and tool calls, and an odd usage's valid prompt tokens", () => {
    const message = {
      content: 'abcd',
      reasoning_content: 'éé',
      tool_calls: [{ function: { name: 'run', arguments: '{"a":1}' } }],
    };
    expect(receivedOf(message, { prompt_tokens: 12, completion_tokens: '9' })).toEqual({
      bytes: 4 + 4 + 3 + 7,
      pieces: 0,
      promptTokens: 12,
    });
    expect(receivedOf(null, { prompt_tokens: -1 })).toEqual({ bytes: 0, pieces: 0, promptTokens: null });
  });
});
