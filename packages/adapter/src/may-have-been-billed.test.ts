import { createServer } from 'node:net';
import { closeTestEmulators, startTestEmulator } from '@switchboard/test-support';
import { afterEach, describe, expect, it } from 'vitest';
import type { AttemptOutcome, CallObserver } from './call-observer.js';
import { ChatAdapter } from './chat-adapter.js';
import type { CompleteRequest } from './chat-client.js';
import { ChatError } from './chat-error.js';
import { mayHaveBeenBilled } from './may-have-been-billed.js';
import { OpenAITransport } from './openai-transport.js';

const request: CompleteRequest = {
  model: 'primary-flash',
  messages: [{ role: 'user', content: 'hi' }],
  timeoutSeconds: 0.3,
};

/** The outcomes the attempts of one call ended with, over a real OpenAITransport. */
async function outcomesOf(
  baseUrl: string,
  options: { signal?: AbortSignal } = {},
): Promise<AttemptOutcome[]> {
  const outcomes: AttemptOutcome[] = [];
  const observer: CallObserver = { beforeAttempt: () => ({ end: (outcome) => void outcomes.push(outcome) }) };
  const adapter = new ChatAdapter(new OpenAITransport({ apiKey: 'test-key', baseUrl, maxAttempts: 1 }), {
    observers: [observer],
  });
  await adapter
    .complete({ ...request, ...(options.signal ? { signal: options.signal } : {}) })
    .catch(() => {});
  return outcomes;
}

afterEach(closeTestEmulators);

describe('AttemptOutcome.mayHaveBeenBilled', () => {
  it('is true for an attempt whose reply was read', async () => {
    const emulator = await startTestEmulator({});
    expect(await outcomesOf(emulator.url)).toMatchObject([
      { record: { model: 'primary-flash' }, mayHaveBeenBilled: true },
    ]);
  });

  it('is true when the request may have reached the provider and no reply says what it cost', async () => {
    const reset = await startTestEmulator({ faults: [{ reset: true }] });
    expect(await outcomesOf(reset.url)).toMatchObject([
      { record: null, error: { kind: 'connection' }, mayHaveBeenBilled: true },
    ]);
    const slow = await startTestEmulator({ faults: [{ delayMs: 1000 }] });
    expect(await outcomesOf(slow.url)).toMatchObject([
      { record: null, error: { kind: 'timeout' }, mayHaveBeenBilled: true },
    ]);
    const cut = await startTestEmulator({
      faults: [{ body: '{"choices": [', contentType: 'application/json' }],
    });
    expect(await outcomesOf(cut.url)).toMatchObject([{ record: null, mayHaveBeenBilled: true }]);
  });

  it('is false when the provider answered with an error status', async () => {
    const emulator = await startTestEmulator({ faults: [{ status: 503 }] });
    expect(await outcomesOf(emulator.url)).toMatchObject([
      { record: null, error: { kind: 'server', status: 503 }, mayHaveBeenBilled: false },
    ]);
  });

  it('is false when the request provably never left: connection refused, aborted before sending', async () => {
    const port = await closedPort();
    expect(await outcomesOf(`http://127.0.0.1:${port}`)).toMatchObject([
      { record: null, error: { kind: 'connection' }, mayHaveBeenBilled: false },
    ]);
    const emulator = await startTestEmulator({});
    const controller = new AbortController();
    const aborting: CallObserver = { beforeAttempt: () => controller.abort() };
    const outcomes: AttemptOutcome[] = [];
    const observer: CallObserver = {
      beforeAttempt: () => ({ end: (outcome) => void outcomes.push(outcome) }),
    };
    const adapter = new ChatAdapter(new OpenAITransport({ apiKey: 'test-key', baseUrl: emulator.url }), {
      observers: [observer, aborting],
    });
    await adapter.complete({ ...request, signal: controller.signal }).catch(() => {});
    expect(outcomes).toMatchObject([{ record: null, error: { kind: 'aborted' }, mayHaveBeenBilled: false }]);
    expect(emulator.requests).toHaveLength(0);
  });

  it('guesses from the error alone when the transport cannot tell whether it sent', () => {
    expect(mayHaveBeenBilled(new ChatError({ kind: 'budget', message: 'refused' }))).toBe(false);
    expect(mayHaveBeenBilled(new ChatError({ kind: 'timeout', message: 'slow' }))).toBe(true);
    expect(mayHaveBeenBilled(new Error('a stub failed'))).toBe(true);
    expect(mayHaveBeenBilled(new ChatError({ kind: 'timeout', message: 'slow' }), false)).toBe(false);
  });
});

/** A loopback port with nothing listening. */
function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address !== null ? address.port : 9));
    });
  });
}
