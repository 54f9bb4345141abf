import type { Emulator } from '@switchboard/emulator';
import { closeTestEmulators, startTestEmulator } from '@switchboard/test-support';
import { afterEach, describe, expect, it } from 'vitest';
import { ChatAdapter, ChatError, type ChatMessage, toAssistantMessage } from '../../src/index.js';
import { askForTodos, grepTool } from '../support/grep-tool.js';
import { WIRE_TRANSPORTS, type WireTransportCase } from '../support/wire-transports.js';

// Spec 1.3 and 4.2: the reasoning stays on the reply so callers can replay it across tool turns;
// with thinking on, the platform refuses a tool-call turn replayed without it.

const KEY = 'wire-test-key-1d8e';
const toolOutput = 'packages/adapter/src/chat-adapter.ts:12: TODO document the retry';

afterEach(closeTestEmulators);

/** A thinking adapter (disableThinking false) and the first step of a tool loop: the model's tool call. */
async function firstStep(wire: WireTransportCase) {
  const emulator = await startTestEmulator({ key: KEY });
  const adapter = new ChatAdapter(wire.make({ apiKey: KEY, baseUrl: emulator.url }), {
    disableThinking: false,
  });
  const call = await adapter.complete({ model: 'primary-flash', messages: [askForTodos], tools: [grepTool] });
  return { emulator, adapter, call };
}

/** The messages the emulator received in request `index` (0-based). */
function sentMessages(emulator: Emulator, index: number): ChatMessage[] {
  const body = emulator.requests[index]?.body as { messages?: ChatMessage[] } | null | undefined;
  if (!Array.isArray(body?.messages)) throw new Error(`request ${index} has no messages`);
  return body.messages;
}

function toolResult(callId: string): ChatMessage {
  return { role: 'tool', tool_call_id: callId, content: toolOutput };
}

describe.each(WIRE_TRANSPORTS)('over $name', (wire) => {
  describe('ChatAdapter, a two-step tool loop with thinking on', () => {
    describe('step one', () => {
      it('gets a tool call with its reasoning, and sends no thinking field', async () => {
        const { emulator, call } = await firstStep(wire);

        expect(emulator.requests[0]?.body).not.toHaveProperty('thinking');
        expect(call.finishReason).toBe('tool_calls');
        expect(call.toolCalls).toEqual([
          {
            id: expect.any(String),
            name: 'grep_repository',
            arguments: { pattern: 'TODO to list the open markers' },
          },
        ]);
        expect(call.reasoning).toEqual(expect.any(String));
      });
    });

    describe('step two, replaying the turn with toAssistantMessage', () => {
      it('sends the reasoning back as reasoning_content beside the tool calls, and gets the final answer', async () => {
        const { emulator, adapter, call } = await firstStep(wire);
        const callId = call.toolCalls[0]?.id ?? '';
        const final = await adapter.complete({
          model: 'primary-flash',
          messages: [askForTodos, toAssistantMessage(call), toolResult(callId)],
          tools: [grepTool],
        });

        expect(emulator.requests).toHaveLength(2);
        const replayed = sentMessages(emulator, 1)[1];
        expect(replayed).toEqual({
          role: 'assistant',
          content: null,
          reasoning_content: call.reasoning,
          tool_calls: [
            {
              id: callId,
              type: 'function',
              function: { name: 'grep_repository', arguments: JSON.stringify(call.toolCalls[0]?.arguments) },
            },
          ],
        });
        expect(final.toolCalls).toEqual([]);
        expect(final.finishReason).toBe('stop');
        expect(final.content).toEqual(
          expect.stringMatching(/^Tool result from grep_repository: packages adapter/),
        );
      });
    });

    describe('step two, replaying the turn without its reasoning', () => {
      it('is rejected with HTTP 400 as ChatError "bad_request" naming reasoning_content, and not retried', async () => {
        const { emulator, adapter, call } = await firstStep(wire);
        const { reasoning_content: _dropped, ...withoutReasoning } = toAssistantMessage(call);
        const failure = await adapter
          .complete({
            model: 'primary-flash',
            messages: [askForTodos, withoutReasoning, toolResult(call.toolCalls[0]?.id ?? '')],
            tools: [grepTool],
          })
          .catch((error: unknown) => error);

        expect(ChatError.isInstance(failure)).toBe(true);
        expect(failure).toMatchObject({ kind: 'bad_request', status: 400, degradation: false });
        expect((failure as Error).message).toContain('reasoning_content');
        expect((failure as Error).message).toContain('message index 1');
        expect(sentMessages(emulator, 1)[1]).not.toHaveProperty('reasoning_content');
        expect(emulator.requests).toHaveLength(2);
      });
    });
  });
});
