import { inspect } from 'node:util';
import type { Emulator, EmulatorOptions } from '@switchboard/emulator';
import { bodyOf, closeTestEmulators, startTestEmulator } from '@switchboard/test-support';
import { afterEach, describe, expect, it } from 'vitest';
import { ChatAdapter, ChatError, type ChatMessage } from '../../src/index.js';
import { grepTool } from '../support/grep-tool.js';
import { WIRE_TRANSPORTS, type WireTransportCase } from '../support/wire-transports.js';

// Spec 4.2, observed at the emulator: every request goes through the real SDK over a loopback socket.

const KEY = 'wire-test-key-4f2a';
const question: ChatMessage[] = [{ role: 'user', content: 'Is the build green?' }];

afterEach(closeTestEmulators);

async function start(options: EmulatorOptions = {}): Promise<Emulator> {
  return startTestEmulator({ key: KEY, ...options });
}

function adapterFor(
  wire: WireTransportCase,
  emulator: Emulator,
  options: { disableThinking?: boolean; apiKey?: string } = {},
) {
  const transport = wire.make({ apiKey: options.apiKey ?? KEY, baseUrl: emulator.url });
  return new ChatAdapter(transport, { disableThinking: options.disableThinking ?? true });
}

describe.each(WIRE_TRANSPORTS)('over $name', (wire) => {
  describe('ChatAdapter, request fields on the wire (spec 4.2)', () => {
    describe('a plain call with every option at its default', () => {
      it('sends exactly model, messages, temperature 0 and thinking disabled to POST /chat/completions', async () => {
        const emulator = await start();
        await adapterFor(wire, emulator).complete({ model: 'primary-flash', messages: question });

        expect(emulator.requests).toHaveLength(1);
        expect(emulator.requests[0]?.method).toBe('POST');
        expect(emulator.requests[0]?.path).toBe('/chat/completions');
        expect(emulator.requests[0]?.body).toStrictEqual({
          model: 'primary-flash',
          messages: question,
          temperature: 0,
          thinking: { type: 'disabled' },
        });
      });

      it('omits tools, response_format, logprobs, top_logprobs and max_tokens', async () => {
        const emulator = await start();
        await adapterFor(wire, emulator).complete({ model: 'primary-flash', messages: question, tools: [] });

        const body = bodyOf(emulator, 0);
        for (const field of ['tools', 'response_format', 'logprobs', 'top_logprobs', 'max_tokens']) {
          expect(body, field).not.toHaveProperty(field);
        }
      });
    });

    describe('temperature', () => {
      it('sends a given temperature in place of the default 0', async () => {
        const emulator = await start();
        await adapterFor(wire, emulator).complete({
          model: 'primary-flash',
          messages: question,
          temperature: 0.7,
        });

        expect(bodyOf(emulator, 0).temperature).toBe(0.7);
      });

      it('gives the same answer twice at the default temperature with thinking disabled', async () => {
        const emulator = await start();
        const adapter = adapterFor(wire, emulator);
        const first = await adapter.complete({ model: 'primary-flash', messages: question });
        const second = await adapter.complete({ model: 'primary-flash', messages: question });

        expect(bodyOf(emulator, 1).temperature).toBe(0);
        expect(second.content).toBe(first.content);
      });
    });

    describe('tools', () => {
      it('sends a non-empty tool list as given', async () => {
        const emulator = await start();
        await adapterFor(wire, emulator).complete({
          model: 'primary-flash',
          messages: [{ role: 'user', content: 'Run grep_repository for TODO markers.' }],
          tools: [grepTool],
        });

        expect(bodyOf(emulator, 0).tools).toEqual([grepTool]);
      });
    });

    describe('thinking', () => {
      it('leaves thinking out when disableThinking is false, and the reply then carries reasoning', async () => {
        const emulator = await start();
        const response = await adapterFor(wire, emulator, { disableThinking: false }).complete({
          model: 'primary-flash',
          messages: question,
        });

        expect(bodyOf(emulator, 0)).not.toHaveProperty('thinking');
        expect(response.reasoning).toEqual(expect.any(String));
      });

      it('sends thinking {type: "disabled"} by default, and the reply then has no reasoning', async () => {
        const emulator = await start();
        const response = await adapterFor(wire, emulator).complete({
          model: 'primary-flash',
          messages: question,
        });

        expect(bodyOf(emulator, 0).thinking).toEqual({ type: 'disabled' });
        expect(response.reasoning).toBeNull();
      });
    });

    describe('JSON mode', () => {
      it('sends response_format {type: "json_object"} with jsonObject and gets JSON content back', async () => {
        const emulator = await start();
        const response = await adapterFor(wire, emulator).complete({
          model: 'primary-flash',
          messages: question,
          jsonObject: true,
        });

        expect(bodyOf(emulator, 0).response_format).toEqual({ type: 'json_object' });
        expect(JSON.parse(response.content ?? '')).toEqual(expect.objectContaining({ findings: [] }));
      });
    });

    describe('logprobs', () => {
      it('sends logprobs true with top_logprobs 1', async () => {
        const emulator = await start();
        await adapterFor(wire, emulator).complete({
          model: 'primary-flash',
          messages: question,
          logprobs: true,
        });

        expect(bodyOf(emulator, 0)).toMatchObject({ logprobs: true, top_logprobs: 1 });
      });
    });

    describe('a bounded copy', () => {
      it('sends max_tokens n, and only the copy does', async () => {
        const emulator = await start();
        const adapter = adapterFor(wire, emulator);
        await adapter.bounded(48).complete({ model: 'primary-flash', messages: question });
        await adapter.complete({ model: 'primary-flash', messages: question });

        expect(bodyOf(emulator, 0).max_tokens).toBe(48);
        expect(bodyOf(emulator, 1)).not.toHaveProperty('max_tokens');
      });
    });

    describe('every option at once', () => {
      it('sends each field beside the defaults, the given temperature winning', async () => {
        const emulator = await start();
        await adapterFor(wire, emulator)
          .bounded(64)
          .complete({
            model: 'primary-v4-pro',
            messages: [{ role: 'user', content: 'List the open findings.' }],
            tools: [grepTool],
            jsonObject: true,
            logprobs: true,
            temperature: 0.3,
          });

        expect(emulator.requests[0]?.body).toMatchInlineSnapshot(`
          {
            "logprobs": true,
            "max_tokens": 64,
            "messages": [
              {
                "content": "List the open findings.",
                "role": "user",
              },
            ],
            "model": "primary-v4-pro",
            "response_format": {
              "type": "json_object",
            },
            "temperature": 0.3,
            "thinking": {
              "type": "disabled",
            },
            "tools": [
              {
                "function": {
                  "description": "Searches the repository for a pattern.",
                  "name": "grep_repository",
                  "parameters": {
                    "properties": {
                      "pattern": {
                        "type": "string",
                      },
                    },
                    "required": [
                      "pattern",
                    ],
                    "type": "object",
                  },
                },
                "type": "function",
              },
            ],
            "top_logprobs": 1,
          }
        `);
      });
    });

    describe('timeoutSeconds', () => {
      it('becomes the per-request timeout the SDK announces, 60 seconds by default', async () => {
        const emulator = await start();
        const adapter = adapterFor(wire, emulator);
        await adapter.complete({ model: 'primary-flash', messages: question });
        await adapter.complete({ model: 'primary-flash', messages: question, timeoutSeconds: 7 });

        expect(emulator.requests[0]?.headers['x-stainless-timeout']).toBe('60');
        expect(emulator.requests[1]?.headers['x-stainless-timeout']).toBe('7');
      });
    });

    describe('authorization', () => {
      it('presents the key as a Bearer token, which the server accepts and records redacted', async () => {
        const emulator = await start();
        const response = await adapterFor(wire, emulator).complete({
          model: 'primary-flash',
          messages: question,
        });

        expect(response.content).toEqual(expect.stringContaining('Answer to: Is the build green'));
        expect(emulator.requests[0]?.headers.authorization).toBe('Bearer [redacted]');
        expect(JSON.stringify(emulator.requests)).not.toContain(KEY);
      });

      it('rejects with ChatError kind "auth" and status 401 when the key is wrong, no key in its inspected form', async () => {
        const emulator = await start();
        const wrongKey = 'wire-test-wrong-key-9c1e';
        const failure = await adapterFor(wire, emulator, { apiKey: wrongKey })
          .complete({ model: 'primary-flash', messages: question })
          .catch((error: unknown) => error);

        expect(ChatError.isInstance(failure)).toBe(true);
        expect(failure).toMatchObject({ kind: 'auth', status: 401, retryable: false });
        const shown = inspect(failure, { depth: 10, showHidden: true });
        expect(shown).not.toContain(wrongKey);
        expect(shown).not.toContain(KEY);
        expect(emulator.requests).toHaveLength(1);
      });

      it('sends no Authorization header at all with an empty key, and the 401 surfaces as "auth"', async () => {
        const emulator = await start();
        const failure = await adapterFor(wire, emulator, { apiKey: '' })
          .complete({ model: 'primary-flash', messages: question })
          .catch((error: unknown) => error);

        expect(emulator.requests[0]?.headers).not.toHaveProperty('authorization');
        expect(failure).toMatchObject({ kind: 'auth', status: 401 });
      });
    });
  });
});
