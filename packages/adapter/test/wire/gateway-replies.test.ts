import type { Emulator } from '@switchboard/emulator';
import { bodyOf, closeTestEmulators, startTestEmulator } from '@switchboard/test-support';
import { afterEach, describe, expect, it } from 'vitest';
import { ChatAdapter, type ChatMessage, type ChatResponse, toAssistantMessage } from '../../src/index.js';
import { failureOf } from '../support/failure-of.js';
import { askForTodos, grepTool } from '../support/grep-tool.js';
import { WIRE_TRANSPORTS, type WireTransportCase } from '../support/wire-transports.js';

// Issue 10, observation 6 (the adapter's part): the gateway's reasoning arrives as `reasoning` plus a
// `reasoning_details` array (signed entries) that must go back unchanged on the next turn, and a
// logprob of -9999 (the documented sentinel) or above 0 (invalid) must not skew meanLogprob.

const KEY = 'wire-gateway-key-5c1e';

afterEach(closeTestEmulators);

/** A reasoning adapter (thinking not disabled) over a real transport to `emulator`. */
function adapterFor(wire: WireTransportCase, emulator: Emulator): ChatAdapter {
  return new ChatAdapter(wire.make({ apiKey: KEY, baseUrl: emulator.url }), {
    disableThinking: false,
  });
}

/** The gateway emulator and the first step of a tool loop: the model's tool call with its reasoning. */
async function gatewayToolCall(wire: WireTransportCase) {
  const emulator = await startTestEmulator({ flavor: 'gateway', key: KEY });
  const adapter = adapterFor(wire, emulator);
  const call = await adapter.complete({ model: 'primary-flash', messages: [askForTodos], tools: [grepTool] });
  return { emulator, adapter, call };
}

/** The second step: `turn` replayed before the tool's result. */
function replay(adapter: ChatAdapter, call: ChatResponse, turn: ChatMessage): Promise<ChatResponse> {
  const toolResult: ChatMessage = {
    role: 'tool',
    tool_call_id: call.toolCalls[0]?.id ?? '',
    content: 'packages/adapter/src/chat-adapter.ts:12: TODO document the retry',
  };
  return adapter.complete({
    model: 'primary-flash',
    messages: [askForTodos, turn, toolResult],
    tools: [grepTool],
  });
}

/** The assistant turn (message 1) of request `index` (0-based), as the emulator received it. */
function sentAssistant(emulator: Emulator, index: number): Record<string, unknown> {
  const messages = bodyOf(emulator, index).messages as Record<string, unknown>[];
  return messages[1] ?? {};
}

describe.each(WIRE_TRANSPORTS)('over $name', (wire) => {
  describe('ChatAdapter against the gateway flavour (issue 10.6)', () => {
    describe('a tool-call turn with reasoning', () => {
      it('keeps reasoning and the reasoning_details array as received, signed entries included', async () => {
        const { emulator, call } = await gatewayToolCall(wire);

        expect(emulator.url).toMatch(/\/api\/v1$/);
        expect(emulator.requests[0]?.path).toBe('/api/v1/chat/completions');
        expect(call.finishReason).toBe('tool_calls');
        expect(call.reasoning).toEqual(expect.any(String));
        expect(call.reasoningDetails).toEqual([
          expect.objectContaining({
            type: 'reasoning.text',
            text: call.reasoning,
            signature: expect.any(String),
          }),
          expect.objectContaining({ type: 'reasoning.summary' }),
        ]);
      });

      it('is accepted when replayed with toAssistantMessage: the details go back unchanged', async () => {
        const { emulator, adapter, call } = await gatewayToolCall(wire);
        const final = await replay(adapter, call, toAssistantMessage(call));

        expect(emulator.requests).toHaveLength(2);
        expect(sentAssistant(emulator, 1)).toMatchObject({
          reasoning: call.reasoning,
          reasoning_details: call.reasoningDetails,
        });
        expect(final.finishReason).toBe('stop');
        expect(final.content).toMatch(/^Tool result from grep_repository/);
      });

      it('is refused with 400 bad_request when replayed without reasoning_details', async () => {
        const { emulator, adapter, call } = await gatewayToolCall(wire);
        const { reasoning_details: _dropped, ...withoutDetails } = toAssistantMessage(call);
        const error = await failureOf(replay(adapter, call, withoutDetails));

        expect(error).toMatchObject({ kind: 'bad_request', status: 400, retryable: false });
        expect(error.message).toContain('Missing `reasoning_details`');
        expect(emulator.requests).toHaveLength(2);
      });

      it('is refused with 400 bad_request when a signed entry was changed', async () => {
        const { emulator, adapter, call } = await gatewayToolCall(wire);
        const [signed, ...rest] = (call.reasoningDetails ?? []) as Record<string, unknown>[];
        const altered = { ...signed, signature: `${String(signed?.signature)}x` };
        const error = await failureOf(
          replay(adapter, call, { ...toAssistantMessage(call), reasoning_details: [altered, ...rest] }),
        );

        expect(error).toMatchObject({ kind: 'bad_request', status: 400 });
        expect(error.message).toContain('were changed');
        expect(emulator.requests).toHaveLength(2);
      });
    });
  });

  describe('ChatAdapter, meanLogprob of a raw reply (issue 10.6)', () => {
    it('averages only the valid logprobs: not the -9999 sentinel, not a positive value', async () => {
      const normal = [-0.25, -1.5, -0.05, -2.2];
      const tokens = [-9999, ...normal.slice(0, 2), 0.7, ...normal.slice(2)].map((logprob, index) => ({
        token: `t${index}`,
        logprob,
        bytes: null,
        top_logprobs: [],
      }));
      const reply = {
        id: 'chatcmpl-logprobs',
        object: 'chat.completion',
        created: 1_700_000_000,
        model: 'primary-flash',
        choices: [
          {
            index: 0,
            message: { role: 'assistant', content: tokens.map((token) => token.token).join('') },
            logprobs: { content: tokens },
            finish_reason: 'stop',
          },
        ],
        usage: { prompt_tokens: 9, completion_tokens: 6, total_tokens: 15 },
      };
      const emulator = await startTestEmulator({
        key: KEY,
        faults: [{ body: JSON.stringify(reply), contentType: 'application/json' }],
      });
      const response = await adapterFor(wire, emulator).complete({
        model: 'primary-flash',
        messages: [{ role: 'user', content: 'How sure is the answer?' }],
        logprobs: true,
      });

      expect(response.logprobs).toEqual({ content: tokens });
      const mean = normal.reduce((sum, value) => sum + value, 0) / normal.length;
      expect(response.meanLogprob).toBeCloseTo(mean, 12);
      expect(emulator.requests).toHaveLength(1);
    });
  });
});
