import {
  ChatAdapter,
  type ChatMessage,
  OpenAITransport,
  type ToolSchema,
  toAssistantMessage,
} from '@switchboard/adapter';
import { ScriptedChatClient } from '@switchboard/scripted';
import { closeTestEmulators, startTestEmulator } from '@switchboard/test-support';
import { afterEach, describe, expect, it } from 'vitest';
import { cassetteToScript, recordCassette } from '../src/index.js';
import { cassettePath } from './support/cassette-path.js';

afterEach(closeTestEmulators);

const TOOL: ToolSchema = {
  type: 'function',
  function: {
    name: 'grep_repository',
    parameters: { type: 'object', properties: { pattern: { type: 'string' } }, required: ['pattern'] },
  },
};

describe('cassetteToScript', () => {
  it('turns a recorded tool loop into a script that ScriptedChatClient answers the same way', async () => {
    const emulator = await startTestEmulator({ faults: [{ requests: [2], status: 500 }] });
    const path = cassettePath('script');
    const adapter = new ChatAdapter(
      recordCassette(
        path,
        new OpenAITransport({ apiKey: '', baseUrl: emulator.url, retryBackoffSeconds: 0 }),
      ),
      { disableThinking: false },
    );
    const messages: ChatMessage[] = [{ role: 'user', content: 'Use grep_repository to find eval' }];
    const first = await adapter.complete({ model: 'primary-flash', messages, tools: [TOOL] });
    messages.push(toAssistantMessage(first));
    messages.push({ role: 'tool', tool_call_id: first.toolCalls[0]?.id ?? '', content: 'no match' });
    const second = await adapter.complete({ model: 'primary-flash', messages, tools: [TOOL] });

    // The second call's first attempt failed (a 500, retried): the script keeps the reply, not the attempt.
    const turns = cassetteToScript(path);
    expect(turns).toHaveLength(2);
    const scripted = new ScriptedChatClient(turns);
    const replayedFirst = await scripted.complete({ model: 'primary-flash', messages: [] });
    const replayedSecond = await scripted.complete({ model: 'primary-flash', messages: [] });
    for (const [replayed, live] of [
      [replayedFirst, first],
      [replayedSecond, second],
    ] as const) {
      expect(replayed.content).toBe(live.content);
      expect(replayed.toolCalls).toEqual(live.toolCalls);
      expect(replayed.reasoning).toBe(live.reasoning);
      expect(replayed.finishReason).toBe(live.finishReason);
    }
    expect(replayedFirst.toolCalls[0]?.name).toBe('grep_repository');
  });
});
