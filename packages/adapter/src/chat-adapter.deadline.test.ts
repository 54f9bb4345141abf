import { describe, expect, it } from 'vitest';
import { ChatAdapter } from './chat-adapter.js';
import { ChatError } from './chat-error.js';
import type { ChatTransport } from './chat-transport.js';

/** A stub that never answers and ignores every signal. */
const silent: ChatTransport = {
  completeChat: () => new Promise(() => {}),
};

describe('ChatAdapter deadlineSeconds with a transport that ignores signals', () => {
  it('still ends the call with a timeout ChatError, and records it', async () => {
    const kinds: string[] = [];
    const adapter = new ChatAdapter(silent, {
      observers: [{ afterCall: (record) => kinds.push(record.error?.kind ?? 'reply') }],
    });

    const failure = await adapter
      .complete({
        model: 'primary-flash',
        messages: [{ role: 'user', content: 'hi' }],
        deadlineSeconds: 0.05,
      })
      .then(
        () => null,
        (error: unknown) => error,
      );

    expect(ChatError.isInstance(failure) && failure.kind).toBe('timeout');
    expect((failure as Error).message).toMatch(/deadline of 0\.05 s/);
    expect(kinds).toEqual(['timeout']);
  });
});
