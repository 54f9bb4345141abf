import { sharedEmulator } from '@switchboard/test-support';
import { describe, expect, it } from 'vitest';
import { failureOf } from '../support/failure-of.js';
import { chatRequests, transportRequest, transportTo } from '../support/transport-to.js';
import { WIRE_TRANSPORTS } from '../support/wire-transports.js';

// Issue 10, observation 1: an error body that never ends hung the call forever (the SDK read it
// with no timer and no cap), and an endless 200 body failed only at V8's string limit. Now every
// attempt has one deadline up to the last byte, and bodies have a cap past which the connection
// is dropped.

const KEY = 'wire-bounded-key-41c7';
const emulator = sharedEmulator({ key: KEY });
const request = (timeoutSeconds: number) => transportRequest('List the failing jobs.', timeoutSeconds);

describe.each(WIRE_TRANSPORTS)('over $name', (wire) => {
  describe('against an endless body (issue 10.1)', () => {
    describe('a 500 whose error body never ends, one attempt', () => {
      it('rejects typed by the status, naming the 64 KiB error-body cap, long before its timeout', async () => {
        emulator().setFaults([{ endlessBody: true, status: 500 }]);
        const started = Date.now();
        const error = await failureOf(
          transportTo(emulator(), KEY, { maxAttempts: 1 }, wire).completeChatRaw(request(60)),
        );
        expect(error).toMatchObject({ kind: 'server', status: 500, retryable: true });
        expect(error.message).toContain('the error body passed the 64 KiB cap');
        expect(Date.now() - started).toBeLessThan(30_000);
      }, 40_000);
    });

    describe('a 200 whose body never ends', () => {
      it('rejects with bad_reply naming the 16 MiB cap, not retried', async () => {
        emulator().setFaults([{ endlessBody: true }]);
        const error = await failureOf(transportTo(emulator(), KEY, {}, wire).completeChatRaw(request(60)));
        expect(error).toMatchObject({ kind: 'bad_reply', status: 200, retryable: false });
        expect(error.message).toContain('the reply body passed the 16 MiB cap (maxReplyBytes)');
        expect(chatRequests(emulator())).toBe(1);
      }, 40_000);

      it('names a configured cap', async () => {
        emulator().setFaults([{ endlessBody: true }]);
        const transport = transportTo(emulator(), KEY, { maxReplyBytes: 256 * 1024 }, wire);
        const error = await failureOf(transport.completeChatRaw(request(60)));
        expect(error.message).toContain('passed the 256 KiB cap');
      }, 40_000);
    });

    describe('an error body trickling in, slower than the timeout', () => {
      it('rejects with a timeout at the deadline: it covers the error body too', async () => {
        emulator().setFaults([{ endlessBody: true, status: 503, trickleMs: 50 }]);
        const started = Date.now();
        const error = await failureOf(
          transportTo(emulator(), KEY, { maxAttempts: 1 }, wire).completeChatRaw(request(0.5)),
        );
        expect(error).toMatchObject({ kind: 'timeout', status: 503, retryable: true });
        expect(error.message).toContain('within 500 ms (per attempt)');
        expect(Date.now() - started).toBeLessThan(20_000);
      }, 30_000);
    });

    describe('a 200 body trickling in, slower than the timeout', () => {
      it('rejects with a timeout, status 200, and retries it per attempt', async () => {
        emulator().setFaults([{ endlessBody: true, trickleMs: 50 }]);
        const error = await failureOf(
          transportTo(emulator(), KEY, { maxAttempts: 2 }, wire).completeChatRaw(request(0.3)),
        );
        expect(error).toMatchObject({ kind: 'timeout', status: 200, retryable: true });
        expect(chatRequests(emulator())).toBe(2);
      }, 30_000);
    });
  });
});
