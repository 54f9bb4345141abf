import type { ChatResponse, CompleteRequest } from '@switchboard/adapter';
import { emptyChatResponse } from '@switchboard/test-support';
import { describe, expect, it } from 'vitest';
import { ScriptedChatClient } from './scripted-chat-client.js';

/** A response with every field at its empty value. */
const EMPTY: ChatResponse = emptyChatResponse();

function request(text: string): CompleteRequest {
  return { model: 'primary-flash', messages: [{ role: 'user', content: text }] };
}

describe('ScriptedChatClient', () => {
  describe('within the script', () => {
    it('answers call i with turn i', async () => {
      const client = new ScriptedChatClient([{ content: 'first' }, { content: 'second' }]);
      expect((await client.complete(request('a'))).content).toBe('first');
      expect((await client.complete(request('b'))).content).toBe('second');
    });

    it('fills every missing field with its empty value', async () => {
      const client = new ScriptedChatClient([{}]);
      expect(await client.complete(request('a'))).toEqual(EMPTY);
    });

    it('keeps every field the turn gives', async () => {
      const turn = {
        content: 'done',
        toolCalls: [{ id: 'call_1', name: 'grep_repository', arguments: { pattern: 'x' } }],
        reasoning: 'thinking it over',
        logprobs: {
          content: [{ token: 'done', logprob: -0.5, bytes: null, top_logprobs: [] }],
          refusal: null,
        },
        meanLogprob: -0.5,
        finishReason: 'stop',
      };
      const client = new ScriptedChatClient([turn]);
      expect(await client.complete(request('a'))).toEqual({ ...EMPTY, ...turn });
    });

    it('returns frozen responses, tool calls and arguments', async () => {
      const client = new ScriptedChatClient([
        { toolCalls: [{ id: 'call_1', name: 'grep_repository', arguments: { pattern: 'x' } }] },
      ]);
      const response = await client.complete(request('a'));
      expect(Object.isFrozen(response)).toBe(true);
      expect(Object.isFrozen(response.toolCalls)).toBe(true);
      expect(Object.isFrozen(response.toolCalls[0])).toBe(true);
      expect(Object.isFrozen(response.toolCalls[0]?.arguments)).toBe(true);
    });

    it('is not changed by later edits to the turns it was given', async () => {
      const turns = [{ content: 'original' }];
      const client = new ScriptedChatClient(turns);
      turns[0] = { content: 'edited' };
      expect((await client.complete(request('a'))).content).toBe('original');
    });
  });

  describe('past the end of the script', () => {
    it("answers with content '' and nothing else", async () => {
      const client = new ScriptedChatClient([{ content: 'only', finishReason: 'stop' }]);
      await client.complete(request('a'));
      expect(await client.complete(request('b'))).toEqual({ ...EMPTY, content: '' });
    });

    it("answers '' for every call when the script is empty", async () => {
      const client = new ScriptedChatClient([]);
      expect((await client.complete(request('a'))).content).toBe('');
      expect((await client.complete(request('b'))).content).toBe('');
    });

    it('starts over with cycle', async () => {
      const client = new ScriptedChatClient([{ content: 'one' }, { content: 'two' }], { cycle: true });
      const contents: Array<string | null> = [];
      for (let call = 0; call < 5; call += 1) contents.push((await client.complete(request('a'))).content);
      expect(contents).toEqual(['one', 'two', 'one', 'two', 'one']);
    });

    it("answers '' with cycle when the script is empty", async () => {
      const client = new ScriptedChatClient([], { cycle: true });
      expect((await client.complete(request('a'))).content).toBe('');
    });
  });

  describe('recording calls', () => {
    it('records every request in order, as given', async () => {
      const client = new ScriptedChatClient([{ content: 'one' }]);
      const first = request('a');
      const second = { ...request('b'), jsonObject: true, timeoutSeconds: 5 };
      await client.complete(first);
      await client.complete(second);
      expect(client.calls).toHaveLength(2);
      expect(client.calls[0]).toBe(first);
      expect(client.calls[1]).toBe(second);
    });

    it('records the calls made past the end too', async () => {
      const client = new ScriptedChatClient([]);
      await client.complete(request('a'));
      await client.complete(request('b'));
      expect(client.calls.map((call) => call.messages[0]?.content)).toEqual(['a', 'b']);
    });
  });

  describe('bad input', () => {
    it('rejects turns that are not an array', () => {
      expect(() => new ScriptedChatClient({} as never)).toThrow(/turns must be an array/);
    });
  });
});
