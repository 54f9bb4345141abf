import { sharedEmulator } from '@switchboard/test-support';
import { describe, expect, it } from 'vitest';
import { ChatAdapter } from '../../src/index.js';
import { failureOf } from '../support/failure-of.js';
import { chatRequests, transportRequest, transportTo } from '../support/transport-to.js';
import { WIRE_TRANSPORTS } from '../support/wire-transports.js';

// Issue 10, observation 2: retry-after was obeyed without limit (a day's sleep while timeoutSeconds
// was 1; past 2^31 ms Node's timer fired after 1 ms), and a call could not be cancelled. Now the
// transport owns the loop: waits up to maxRetryWaitSeconds, a longer one ends the call as
// rate_limited with retryAfterSeconds; an AbortSignal cancels at once, also between attempts.

const KEY = 'wire-retry-key-6b12';
const emulator = sharedEmulator({ key: KEY });
const request = transportRequest('Which deploys are pending?', 1);

describe.each(WIRE_TRANSPORTS)('over $name', (wire) => {
  describe('retry-after past the cap (issue 10.2)', () => {
    it.each([
      ['a day', 86_400, 86_400],
      ['past 2^31 ms', 2 ** 31 + 5, 2 ** 31 + 5],
    ])(
      'ends a 429 asking to wait %s as rate_limited with retryAfterSeconds, after one request',
      async (_, after, seconds) => {
        emulator().setFaults([{ status: 429, retryAfter: after }]);
        const started = Date.now();
        const error = await failureOf(transportTo(emulator(), KEY, {}, wire).completeChatRaw(request));
        expect(error).toMatchObject({
          kind: 'rate_limited',
          status: 429,
          retryable: false,
          retryAfterSeconds: seconds,
        });
        expect(error.message).toContain('past maxRetryWaitSeconds 60');
        expect(chatRequests(emulator())).toBe(1);
        expect(Date.now() - started).toBeLessThan(10_000);
      },
    );

    it('reads an HTTP date in retry-after the same way', async () => {
      emulator().setFaults([{ status: 503, retryAfter: 'Wed, 21 Oct 2065 07:28:00 GMT' }]);
      const error = await failureOf(transportTo(emulator(), KEY, {}, wire).completeChatRaw(request));
      expect(error).toMatchObject({ kind: 'rate_limited', status: 503, retryable: false });
      expect(error.retryAfterSeconds).toBeGreaterThan(30 * 365 * 86_400);
      expect(chatRequests(emulator())).toBe(1);
    });

    it('honours a wait within a configured cap and succeeds', async () => {
      emulator().setFaults([{ status: 429, retryAfterMs: 200, times: 1 }]);
      const started = Date.now();
      const transport = transportTo(emulator(), KEY, { maxRetryWaitSeconds: 1 }, wire);
      await transport.completeChatRaw(request);
      expect(Date.now() - started).toBeGreaterThanOrEqual(190);
      expect(chatRequests(emulator())).toBe(2);
    });

    it('ends a wait past a configured cap', async () => {
      emulator().setFaults([{ status: 429, retryAfter: 2 }]);
      const transport = transportTo(emulator(), KEY, { maxRetryWaitSeconds: 1 }, wire);
      const error = await failureOf(transport.completeChatRaw(request));
      expect(error).toMatchObject({ kind: 'rate_limited', retryAfterSeconds: 2, retryable: false });
    });
  });

  describe('cancelling with an AbortSignal (issue 10.2)', () => {
    it('cancels the wait between attempts at once, as kind aborted, not retryable', async () => {
      emulator().setFaults([{ status: 429, retryAfter: 30 }]);
      const controller = new AbortController();
      setTimeout(() => controller.abort(), 200);
      const started = Date.now();
      const error = await failureOf(
        transportTo(emulator(), KEY, {}, wire).completeChatRaw({ ...request, signal: controller.signal }),
      );
      expect(error).toMatchObject({ kind: 'aborted', retryable: false });
      expect(Date.now() - started).toBeLessThan(10_000);
      expect(chatRequests(emulator())).toBe(1);
    });

    it('cancels an attempt in flight', async () => {
      emulator().setFaults([{ delayMs: 30_000 }]);
      const controller = new AbortController();
      setTimeout(() => controller.abort(), 200);
      const started = Date.now();
      const error = await failureOf(
        transportTo(emulator(), KEY, {}, wire).completeChatRaw({
          ...request,
          timeoutSeconds: 60,
          signal: controller.signal,
        }),
      );
      expect(error).toMatchObject({ kind: 'aborted', status: null, retryable: false });
      expect(Date.now() - started).toBeLessThan(10_000);
      expect(chatRequests(emulator())).toBe(1);
    });

    it('sends nothing when the signal has already aborted', async () => {
      const error = await failureOf(
        transportTo(emulator(), KEY, {}, wire).completeChatRaw({ ...request, signal: AbortSignal.abort() }),
      );
      expect(error.kind).toBe('aborted');
      expect(emulator().requests).toHaveLength(0);
    });

    it('cancels listModels too', async () => {
      emulator().setFaults([{ path: '/models', delayMs: 30_000 }]);
      const controller = new AbortController();
      setTimeout(() => controller.abort(), 200);
      const error = await failureOf(
        transportTo(emulator(), KEY, {}, wire).listModels({ signal: controller.signal }),
      );
      expect(error.kind).toBe('aborted');
    });
  });

  describe('the attempts of its own loop', () => {
    it('retries 409 and reports it as a retryable server error (issue 10.6: it was bad_request, yet retried)', async () => {
      emulator().setFaults([{ status: 409 }]);
      const error = await failureOf(transportTo(emulator(), KEY, {}, wire).completeChatRaw(request));
      expect(error).toMatchObject({ kind: 'server', status: 409, retryable: true });
      expect(chatRequests(emulator())).toBe(3);
    });

    it('calls beforeAttempt and afterAttempt around each attempt, numbered from 1', async () => {
      emulator().setFaults([{ status: 503, times: 1, retryAfterMs: 0 }]);
      const seen: string[] = [];
      await transportTo(emulator(), KEY, {}, wire).completeChatRaw({
        ...request,
        beforeAttempt: (attempt) => {
          seen.push(`before ${attempt} (${chatRequests(emulator())} sent)`);
        },
        afterAttempt: (attempt, failure) => {
          seen.push(`after ${attempt}: ${failure === null ? 'ok' : (failure as { kind: string }).kind}`);
        },
      });
      expect(seen).toEqual(['before 1 (0 sent)', 'after 1: server', 'before 2 (1 sent)', 'after 2: ok']);
    });

    it('ends the call with the error beforeAttempt throws, sending nothing', async () => {
      const refusal = new Error('over budget');
      const outcome = await transportTo(emulator(), KEY, {}, wire)
        .completeChatRaw({
          ...request,
          beforeAttempt: () => {
            throw refusal;
          },
        })
        .catch((error: unknown) => error);
      expect(outcome).toBe(refusal);
      expect(emulator().requests).toHaveLength(0);
    });

    it('makes exactly one attempt from a bounded adapter copy, also for a retryable failure', async () => {
      emulator().setFaults([{ status: 503 }]);
      const adapter = new ChatAdapter(transportTo(emulator(), KEY, {}, wire)).bounded(50);
      await failureOf(adapter.complete({ model: 'primary-flash', messages: request.messages }));
      expect(chatRequests(emulator())).toBe(1);
    });
  });
});
