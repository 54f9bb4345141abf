import { bodyOf, closeTestEmulators, startTestEmulator } from '@switchboard/test-support';
import { afterEach, describe, expect, it } from 'vitest';
import { AttemptingTransport, answer, RawTransport } from '../test/support/raw-transport.js';
import type { AttemptInfo, CallObserver } from './call-observer.js';
import { ChatAdapter } from './chat-adapter.js';
import type { CompleteRequest } from './chat-client.js';
import { OpenAITransport } from './openai-transport.js';

const request: CompleteRequest = { model: 'primary-flash', messages: [{ role: 'user', content: 'hi' }] };
const charged = [
  { scope: 'run', limitUsd: 5 },
  { scope: 'run/judge', limitUsd: null },
];

/** An observer whose handles lower each attempt's cap to `cap` and say which scopes they charged. */
function fitting(cap: number, infos: AttemptInfo[] = []): CallObserver {
  return {
    beforeAttempt: (info) => {
      infos.push(info);
      return { end: () => {}, maxTokens: cap, budgets: charged };
    },
  };
}

afterEach(() => closeTestEmulators());

describe('ChatAdapter', () => {
  describe('when an observer lowers an attempt’s cap', () => {
    it('sends the lowered max_tokens on the wire and records from what', async () => {
      const emulator = await startTestEmulator({});
      const infos: AttemptInfo[] = [];
      const seen: AttemptInfo[] = [];
      const after: CallObserver = { beforeAttempt: (info) => void seen.push(info) };
      const adapter = new ChatAdapter(new OpenAITransport({ apiKey: 'test-key', baseUrl: emulator.url }), {
        observers: [fitting(7, infos), after],
      });
      const response = await adapter.complete({ ...request, maxTokens: 40 });
      expect(bodyOf(emulator, 0).max_tokens).toBe(7);
      expect(infos[0]).toMatchObject({ maxTokens: 40, canLowerMaxTokens: true });
      // The observers after it are told the cap that is sent.
      expect(seen[0]?.maxTokens).toBe(7);
      expect(response.calls[0]).toMatchObject({
        maxTokens: 7,
        maxTokensLowered: { from: 40, to: 7 },
        budgets: charged,
      });
    });

    it('gives a call without max_tokens one, streamed too', async () => {
      const emulator = await startTestEmulator({});
      const adapter = new ChatAdapter(new OpenAITransport({ apiKey: 'test-key', baseUrl: emulator.url }), {
        observers: [fitting(5)],
      });
      const stream = adapter.stream(request);
      for await (const _delta of stream);
      const response = await stream.response;
      expect(bodyOf(emulator, 0).max_tokens).toBe(5);
      expect(response.calls[0]?.maxTokensLowered).toEqual({ from: null, to: 5 });
      expect(response.calls[0]?.usage?.completion_tokens).toBeLessThanOrEqual(5);
    });

    it('never raises a cap', async () => {
      const emulator = await startTestEmulator({});
      const adapter = new ChatAdapter(new OpenAITransport({ apiKey: 'test-key', baseUrl: emulator.url }), {
        observers: [fitting(500)],
      });
      const response = await adapter.complete({ ...request, maxTokens: 40 });
      expect(bodyOf(emulator, 0).max_tokens).toBe(40);
      expect(response.calls[0]?.maxTokens).toBe(40);
      expect(response.calls[0]?.maxTokensLowered).toBeUndefined();
    });

    it('applies it itself around a transport called once per attempt', async () => {
      const transport = new RawTransport([answer('ok')]);
      const adapter = new ChatAdapter(transport, { observers: [fitting(3)] });
      const response = await adapter.complete({ ...request, maxTokens: 9 });
      expect(transport.requests[0]?.extraBody.max_tokens).toBe(3);
      expect(response.calls[0]?.maxTokensLowered).toEqual({ from: 9, to: 3 });
    });

    it('tells observers the cap cannot be lowered around a reporting transport that does not apply overrides', async () => {
      const transport = new AttemptingTransport([answer('ok')]);
      const infos: AttemptInfo[] = [];
      const adapter = new ChatAdapter(transport, { observers: [fitting(3, infos)] });
      const response = await adapter.complete({ ...request, maxTokens: 9 });
      expect(infos[0]?.canLowerMaxTokens).toBe(false);
      expect(response.calls[0]?.maxTokens).toBe(9);
      expect(response.calls[0]?.maxTokensLowered).toBeUndefined();
    });
  });

  it('records no budgets for a call no budget observed', async () => {
    const adapter = new ChatAdapter(new RawTransport([answer('ok')]));
    const response = await adapter.complete(request);
    expect(response.calls[0]).not.toHaveProperty('budgets');
  });
});
