import { closeTestEmulators, startTestEmulator } from '@switchboard/test-support';
import { afterEach, describe, expect, it } from 'vitest';
import { ChatAdapter, type ChatMessage } from '../../src/index.js';
import { failureOf } from '../support/failure-of.js';
import { WIRE_TRANSPORTS, type WireTransportCase } from '../support/wire-transports.js';

// A strict OpenAI-compatible server answers 400 to any body field OpenAI's API does not have,
// among them the `thinking` field the adapter sends by default to turn reasoning off.

const KEY = 'wire-strict-key-8d02';
const question: ChatMessage[] = [{ role: 'user', content: 'Is the nightly build green?' }];

afterEach(closeTestEmulators);

async function strictServer(wire: WireTransportCase) {
  const emulator = await startTestEmulator({ key: KEY, strictFields: true });
  return { emulator, transport: wire.make({ apiKey: KEY, baseUrl: emulator.url }) };
}

describe.each(WIRE_TRANSPORTS)('over $name', (wire) => {
  describe('a strict OpenAI-compatible server that refuses the thinking field', () => {
    it('fails with a bad_request naming the settings that stop sending it, after one request', async () => {
      const { emulator, transport } = await strictServer(wire);
      const adapter = new ChatAdapter(transport);

      const error = await failureOf(adapter.complete({ model: 'primary-flash', messages: question }));

      expect(error.kind).toBe('bad_request');
      expect(error.status).toBe(400);
      expect(error.message).toContain('Unrecognized request argument supplied: thinking');
      expect(error.message).toContain(
        'set thinking = true under [models] in switchboard.toml (models.thinking)',
      );
      expect(error.message).toContain('disableThinking: false');
      expect(emulator.requests).toHaveLength(1);
    });

    it('answers once thinking is no longer sent (disableThinking: false)', async () => {
      const { emulator, transport } = await strictServer(wire);
      const adapter = new ChatAdapter(transport, { disableThinking: false });

      const response = await adapter.complete({ model: 'primary-flash', messages: question });

      expect(response.content).toEqual(expect.any(String));
      expect(emulator.requests[0]?.body).not.toHaveProperty('thinking');
    });

    it('adds no such hint to a 400 about another field', async () => {
      const { transport } = await strictServer(wire);
      const adapter = new ChatAdapter(transport, { disableThinking: false });

      const error = await failureOf(
        adapter.complete({ model: 'primary-flash', messages: question, temperature: 7 }),
      );

      expect(error.kind).toBe('bad_request');
      expect(error.message).not.toContain('disableThinking');
    });
  });
});
