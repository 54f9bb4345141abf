import { emptyChatResponse } from '@switchboard/test-support';
import { describe, expect, it } from 'vitest';
import { chatResponseFromMessage } from './chat-response-from-message.js';

const empty = emptyChatResponse();

describe('chatResponseFromMessage', () => {
  describe('with a well-formed message', () => {
    it('reads content, tool calls, reasoning, logprobs and finish reason', () => {
      const logprobs = {
        content: [
          { token: 'a', logprob: -1 },
          { token: 'b', logprob: -3 },
        ],
      };
      const response = chatResponseFromMessage({
        role: 'assistant',
        content: 'hello',
        reasoning_content: 'because',
        tool_calls: [
          { id: 'call-1', type: 'function', function: { name: 'grep', arguments: '{"pattern":"TODO"}' } },
        ],
        logprobs,
        finish_reason: 'stop',
      });
      expect(response).toEqual({
        content: 'hello',
        toolCalls: [{ id: 'call-1', name: 'grep', arguments: { pattern: 'TODO' } }],
        reasoning: 'because',
        logprobs,
        meanLogprob: -2,
        finishReason: 'stop',
        reasoningDetails: null,
        calls: [],
        costUsd: null,
        costNanoUsd: null,
      });
    });

    it('freezes the response, its tool call list and each tool call', () => {
      const response = chatResponseFromMessage({
        content: 'x',
        tool_calls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: '{}' } }],
      });
      expect(Object.isFrozen(response)).toBe(true);
      expect(Object.isFrozen(response.toolCalls)).toBe(true);
      expect(Object.isFrozen(response.toolCalls[0])).toBe(true);
    });
  });

  describe('when the input is not an object', () => {
    it.each([
      ['null', null],
      ['undefined', undefined],
      ['an array', [{ content: 'x' }]],
      ['a string', 'hello'],
      ['a number', 42],
      ['a boolean', true],
    ])('returns the empty response for %s', (_, input) => {
      expect(chatResponseFromMessage(input)).toEqual(empty);
    });

    it('returns an empty response that is frozen', () => {
      expect(Object.isFrozen(chatResponseFromMessage(null))).toBe(true);
    });
  });

  describe('content', () => {
    it.each([
      ['a number', 3],
      ['an array of parts', [{ type: 'text', text: 'x' }]],
      ['null', null],
    ])('reads null when content is %s', (_, content) => {
      expect(chatResponseFromMessage({ content }).content).toBeNull();
    });

    it('keeps an empty string as it is', () => {
      expect(chatResponseFromMessage({ content: '' }).content).toBe('');
    });

    describe('in a tool-call turn', () => {
      const toolCalls = [{ id: 'call_1', type: 'function', function: { name: 'grep', arguments: '{}' } }];

      it.each([
        ['an empty string', ''],
        ['null', null],
        ['absent', undefined],
      ])('reads null when content is %s', (_, content) => {
        expect(chatResponseFromMessage({ content, tool_calls: toolCalls }).content).toBeNull();
      });

      it('keeps text that came with the calls', () => {
        expect(chatResponseFromMessage({ content: 'Looking.', tool_calls: toolCalls }).content).toBe(
          'Looking.',
        );
      });

      it('keeps an empty string when no entry is a readable call', () => {
        expect(chatResponseFromMessage({ content: '', tool_calls: [{ type: 'function' }] }).content).toBe('');
      });
    });
  });

  describe('reasoning', () => {
    it('falls back to the reasoning field when reasoning_content is absent', () => {
      expect(chatResponseFromMessage({ reasoning: 'thought' }).reasoning).toBe('thought');
    });

    it('prefers reasoning_content over reasoning', () => {
      expect(chatResponseFromMessage({ reasoning_content: 'first', reasoning: 'second' }).reasoning).toBe(
        'first',
      );
    });

    it('reads an empty string as null', () => {
      expect(chatResponseFromMessage({ reasoning_content: '', reasoning: '' }).reasoning).toBeNull();
    });

    it('reads a non-string reasoning as null', () => {
      expect(chatResponseFromMessage({ reasoning_content: { text: 'x' } }).reasoning).toBeNull();
    });
  });

  describe('tool calls', () => {
    const call = (fn: unknown, extra: Record<string, unknown> = {}) => ({
      tool_calls: [{ id: 'c1', type: 'function', function: fn, ...extra }],
    });

    it('accepts arguments that are already an object', () => {
      const response = chatResponseFromMessage(call({ name: 'f', arguments: { a: 1 } }));
      expect(response.toolCalls).toEqual([{ id: 'c1', name: 'f', arguments: { a: 1 } }]);
    });

    it.each([
      ['unparsable JSON text', '{"a":'],
      ['JSON text of an array', '[1,2]'],
      ['JSON text of a number', '7'],
      ['JSON text of null', 'null'],
      ['a number', 7],
      ['an array', [1]],
      ['absent', undefined],
    ])('reads arguments as {} when they are %s', (_, args) => {
      const response = chatResponseFromMessage(call({ name: 'f', arguments: args }));
      expect(response.toolCalls).toEqual([{ id: 'c1', name: 'f', arguments: {} }]);
    });

    it('skips malformed entries and keeps the well-formed ones', () => {
      const response = chatResponseFromMessage({
        tool_calls: [
          null,
          'call',
          42,
          [],
          { id: 'no-function' },
          { id: 'no-name', function: { arguments: '{}' } },
          { id: 'empty-name', function: { name: '', arguments: '{}' } },
          { id: 'other-type', type: 'custom', function: { name: 'f', arguments: '{}' } },
          { id: 'good', type: 'function', function: { name: 'g', arguments: '{"x":true}' } },
        ],
      });
      expect(response.toolCalls).toEqual([{ id: 'good', name: 'g', arguments: { x: true } }]);
    });

    it('reads a missing id as an empty string', () => {
      const response = chatResponseFromMessage({
        tool_calls: [{ function: { name: 'f', arguments: '{}' } }],
      });
      expect(response.toolCalls).toEqual([{ id: '', name: 'f', arguments: {} }]);
    });

    it('reads tool_calls that is not an array as no tool calls', () => {
      expect(chatResponseFromMessage({ tool_calls: { 0: 'x' } }).toolCalls).toEqual([]);
    });
  });

  describe('logprobs', () => {
    it('averages only the finite numeric logprobs', () => {
      const logprobs = {
        content: [
          { logprob: -1 },
          { logprob: '-5' },
          { logprob: Number.NaN },
          { logprob: Number.NEGATIVE_INFINITY },
          null,
          { logprob: -2 },
        ],
      };
      expect(chatResponseFromMessage({ logprobs }).meanLogprob).toBe(-1.5);
    });

    it('gives a null mean when no entry is numeric', () => {
      const response = chatResponseFromMessage({ logprobs: { content: [{ logprob: 'x' }] } });
      expect(response.meanLogprob).toBeNull();
      expect(response.logprobs).toEqual({ content: [{ logprob: 'x' }] });
    });

    it('ignores the -9999 sentinel, values below it, positive and non-finite logprobs', () => {
      const content = [-9999, -1e6, 0.5, Number.POSITIVE_INFINITY, Number.NaN, -1, 0, -2].map((logprob) => ({
        token: 't',
        logprob,
      }));
      expect(chatResponseFromMessage({ logprobs: { content } }).meanLogprob).toBe(-1);
    });

    it('gives a null mean when only the sentinel or positive values are there', () => {
      const content = [{ logprob: -9999 }, { logprob: 3 }];
      expect(chatResponseFromMessage({ logprobs: { content } }).meanLogprob).toBeNull();
    });

    it('gives a null mean when logprobs has no content list', () => {
      expect(chatResponseFromMessage({ logprobs: { content: null } }).meanLogprob).toBeNull();
    });
  });

  describe('finish reason', () => {
    it('reads a non-string finish_reason as null', () => {
      expect(chatResponseFromMessage({ finish_reason: 1 }).finishReason).toBeNull();
    });
  });

  describe('with hostile input', () => {
    it('treats fields behind throwing getters as absent', () => {
      const message = {
        content: 'kept',
        get tool_calls(): unknown {
          throw new Error('boom');
        },
        get reasoning_content(): unknown {
          throw new Error('boom');
        },
        get logprobs(): unknown {
          throw new Error('boom');
        },
      };
      expect(chatResponseFromMessage(message)).toEqual({ ...empty, content: 'kept' });
    });

    it('treats tool call arguments behind a throwing getter as {}', () => {
      const args = {
        get a(): unknown {
          throw new Error('boom');
        },
      };
      const response = chatResponseFromMessage({
        tool_calls: [{ id: 'c', function: { name: 'f', arguments: args } }],
      });
      expect(response.toolCalls).toEqual([{ id: 'c', name: 'f', arguments: {} }]);
    });

    it('survives a proxy whose every trap throws', () => {
      const trap = () => {
        throw new Error('trap');
      };
      const hostile = new Proxy({}, { get: trap, has: trap, ownKeys: trap, getOwnPropertyDescriptor: trap });
      expect(chatResponseFromMessage(hostile)).toEqual(empty);
      expect(
        chatResponseFromMessage({ tool_calls: [hostile], logprobs: { content: hostile } }),
      ).toMatchObject({
        toolCalls: [],
        meanLogprob: null,
      });
    });

    it('survives nested junk of every JSON type', () => {
      const response = chatResponseFromMessage({
        content: ['a'],
        tool_calls: [[[]], { function: [] }, { function: { name: ['f'] } }],
        reasoning_content: 0,
        logprobs: { content: [[], 'x', { logprob: {} }] },
        finish_reason: { reason: 'stop' },
      });
      expect(response).toEqual({ ...empty, logprobs: { content: [[], 'x', { logprob: {} }] } });
    });
  });
});
