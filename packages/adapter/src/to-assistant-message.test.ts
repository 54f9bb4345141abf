import { emptyChatResponse } from '@switchboard/test-support';
import { describe, expect, it } from 'vitest';
import type { ChatResponse } from './chat-response.js';
import { chatResponseFromMessage } from './chat-response-from-message.js';
import { toAssistantMessage } from './to-assistant-message.js';

const base: ChatResponse = emptyChatResponse();

describe('toAssistantMessage', () => {
  describe('with tool calls and reasoning', () => {
    const response: ChatResponse = {
      ...base,
      content: 'let me look',
      reasoning: 'I should grep first',
      toolCalls: [{ id: 'call-1', name: 'grep', arguments: { pattern: 'TODO', limit: 3 } }],
    };

    it('writes tool calls in OpenAI shape with arguments as JSON text, and reasoning_content', () => {
      expect(toAssistantMessage(response)).toEqual({
        role: 'assistant',
        content: 'let me look',
        tool_calls: [
          {
            id: 'call-1',
            type: 'function',
            function: { name: 'grep', arguments: '{"pattern":"TODO","limit":3}' },
          },
        ],
        reasoning_content: 'I should grep first',
      });
    });

    it('reads back to the same content, tool calls and reasoning', () => {
      const back = chatResponseFromMessage(toAssistantMessage(response));
      expect(back.content).toBe(response.content);
      expect(back.toolCalls).toEqual(response.toolCalls);
      expect(back.reasoning).toBe(response.reasoning);
    });
  });

  describe('with a plain answer', () => {
    it('leaves out tool_calls when there are none and reasoning_content when there is none', () => {
      const message = toAssistantMessage({ ...base, content: 'done' });
      expect(message).toEqual({ role: 'assistant', content: 'done' });
      expect(message).not.toHaveProperty('tool_calls');
      expect(message).not.toHaveProperty('reasoning_content');
    });

    it('keeps null content as null', () => {
      expect(toAssistantMessage(base)).toEqual({ role: 'assistant', content: null });
    });
  });

  describe('with the gateway reasoning_details', () => {
    const details = [
      { type: 'reasoning.text', text: 'grep first', signature: 'sig-1', format: 'provider-v1' },
      { type: 'reasoning.encrypted', data: 'opaque==', id: null },
    ];

    it('replays the array unchanged beside reasoning_content and the reasoning text', () => {
      const response = chatResponseFromMessage({
        role: 'assistant',
        content: 'ok',
        reasoning: 'grep first',
        reasoning_details: details,
      });
      const message = toAssistantMessage(response);
      expect(message).toEqual({
        role: 'assistant',
        content: 'ok',
        reasoning_content: 'grep first',
        reasoning: 'grep first',
        reasoning_details: details,
      });
      const replayed = message.reasoning_details ?? [];
      expect(replayed[0]).toBe(details[0]);
      expect(JSON.stringify(replayed)).toBe(JSON.stringify(details));
    });

    it('replays the details even without reasoning text, and no reasoning field then', () => {
      const message = toAssistantMessage({ ...base, content: 'ok', reasoningDetails: details });
      expect(message).toEqual({ role: 'assistant', content: 'ok', reasoning_details: details });
    });

    it('reads back to the same details', () => {
      const response = { ...base, content: 'ok', reasoning: 'r', reasoningDetails: details };
      expect(chatResponseFromMessage(toAssistantMessage(response)).reasoningDetails).toEqual(details);
    });

    it('sends no reasoning field for a primary reply (reasoning_content only)', () => {
      const message = toAssistantMessage({ ...base, content: 'ok', reasoning: 'r' });
      expect(message).not.toHaveProperty('reasoning');
      expect(message).not.toHaveProperty('reasoning_details');
    });
  });
});
