import { describe, expect, it } from 'vitest';
import { canonicalMessage, promptTokens } from './prompt-tokens.js';
import { tokenize } from './tokenize.js';

describe('promptTokens', () => {
  describe('messages only', () => {
    it('tokenizes each message as its role then its content', () => {
      const messages = [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Hi there' },
      ];
      expect(promptTokens({ messages })).toEqual(['system', 'Be', 'brief', '.', 'user', 'Hi', 'there']);
    });

    it('reads the text parts of array content', () => {
      const messages = [{ role: 'user', content: [{ type: 'text', text: 'part one' }, { type: 'image' }] }];
      expect(promptTokens({ messages })).toEqual(['user', 'part', 'one']);
    });
  });

  describe('tools and tool turns', () => {
    it('puts the tools before the messages, so a conversation keeps its prefix', () => {
      const tools = [{ type: 'function', function: { name: 'grep' } }];
      const tokens = promptTokens({ messages: [{ role: 'user', content: 'x' }], tools });
      expect(tokens.slice(0, 2)).toEqual(['tools', '[']);
      expect(tokens.slice(-2)).toEqual(['user', 'x']);
    });

    it('counts reasoning, tool call names, arguments and tool call ids', () => {
      const assistant = {
        role: 'assistant',
        content: '',
        reasoning_content: 'think',
        tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'grep', arguments: '{"q":"a"}' } }],
      };
      const tool = { role: 'tool', tool_call_id: 'call_1', content: 'found' };
      expect(canonicalMessage(assistant)).toBe('assistant\n\nthink\ngrep {"q":"a"}');
      expect(promptTokens({ messages: [assistant, tool] })).toEqual([
        ...tokenize('assistant think grep {"q":"a"}'),
        ...tokenize('tool found call_1'),
      ]);
    });
  });
});
