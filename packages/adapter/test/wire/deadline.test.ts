import type { EmulatorOptions } from '@switchboard/emulator';
import { closeTestEmulators, startTestEmulator } from '@switchboard/test-support';
import { afterEach, describe, expect, it } from 'vitest';
import { type CallRecord, ChatAdapter, ChatError, type ChatMessage } from '../../src/index.js';
import { failureOf } from '../support/failure-of.js';
import { WIRE_TRANSPORTS, type WireTransportCase } from '../support/wire-transports.js';

// `deadlineSeconds` bounds a whole call: every attempt, every wait between attempts and the
// empty-JSON retry, where `timeoutSeconds` bounds each attempt alone. Measured against the
// emulator's slow replies and retry waits; the figures leave wide margins on a loaded machine.

const KEY = 'wire-deadline-key-3e11';
const question: ChatMessage[] = [{ role: 'user', content: 'Which deploys are stuck?' }];

afterEach(closeTestEmulators);

async function setUp(wire: WireTransportCase, options: EmulatorOptions = {}) {
  const emulator = await startTestEmulator({ key: KEY, ...options });
  // A short backoff, so the second attempt starts well before the deadlines below.
  const transport = wire.make({ apiKey: KEY, baseUrl: emulator.url, retryBackoffSeconds: 0.05 });
  const records: CallRecord[] = [];
  const adapter = new ChatAdapter(transport, {
    observers: [{ afterCall: (record) => records.push(record) }],
  });
  return { emulator, adapter, records };
}

/** How the call ended, and after how many seconds. */
async function timed(call: Promise<unknown>): Promise<{ error: ChatError; seconds: number }> {
  const started = performance.now();
  const error = await failureOf(call);
  if (!ChatError.isInstance(error)) throw new Error(`expected a ChatError, got ${String(error)}`);
  return { error, seconds: (performance.now() - started) / 1000 };
}

describe.each(WIRE_TRANSPORTS)('over $name', (wire) => {
  describe('CompleteRequest.deadlineSeconds over the wire', () => {
    it('ends a call of slow replies at the deadline with a typed timeout, across per-attempt timeouts and retries', async () => {
      // Each reply takes 3 s; each attempt may take 1 s: three attempts would take over 3 s.
      const { emulator, adapter, records } = await setUp(wire, { faults: [{ delayMs: 3_000 }] });

      const { error, seconds } = await timed(
        adapter.complete({
          model: 'primary-flash',
          messages: question,
          timeoutSeconds: 1,
          deadlineSeconds: 1.4,
        }),
      );

      expect(error.kind).toBe('timeout');
      expect(error.message).toMatch(/deadline of 1\.4 s \(deadlineSeconds/);
      expect(error.message).toContain(`"${emulator.url}/chat/completions"`);
      // Not before the 1 s attempt timeout plus most of the rest: Node arms a timer from the event
      // loop's cached clock, which a busy machine leaves tens of ms stale, so it may fire that early.
      expect(seconds).toBeGreaterThanOrEqual(1.2);
      expect(seconds).toBeLessThan(3);
      // The first attempt timed out at 1 s, the second was cut by the deadline.
      expect(emulator.requests).toHaveLength(2);
      expect(records).toHaveLength(1);
      expect(records[0]?.error).toEqual({ kind: 'timeout', status: null, degradation: false });
    });

    it('ends at once when the retry wait the server asked for would pass the deadline', async () => {
      const { emulator, adapter } = await setUp(wire, {
        faults: [{ status: 503, retryAfter: 10, times: 1 }],
      });

      const { error, seconds } = await timed(
        adapter.complete({ model: 'primary-flash', messages: question, deadlineSeconds: 4 }),
      );

      expect(error.kind).toBe('timeout');
      expect(error.message).toMatch(/503 Service Unavailable/);
      expect(error.message).toMatch(/not retried: the 10000 ms wait .* would pass the call's deadline/);
      expect(ChatError.isInstance(error.cause) && error.cause.kind).toBe('server');
      // Without the look-ahead it would wait out the 4 s deadline.
      expect(seconds).toBeLessThan(2);
      expect(emulator.requests).toHaveLength(1);
    });

    it('cuts a retry wait that fits the deadline but starts too late to finish before it', async () => {
      const { emulator, adapter } = await setUp(wire, {
        faults: [{ status: 503, retryAfter: 1, times: 1, delayMs: 300 }],
      });

      const { error } = await timed(
        adapter.complete({ model: 'primary-flash', messages: question, deadlineSeconds: 1 }),
      );

      expect(error.kind).toBe('timeout');
      expect(error.message).toMatch(/would pass the call's deadline/);
      expect(emulator.requests).toHaveLength(1);
    });

    it('covers the empty-JSON retry as well', async () => {
      const { emulator, adapter, records } = await setUp(wire, {
        emptyJson: [1],
        faults: [{ requests: 2, delayMs: 3_000 }],
      });

      const { error, seconds } = await timed(
        adapter.complete({
          model: 'primary-flash',
          messages: question,
          jsonObject: true,
          deadlineSeconds: 1,
        }),
      );

      expect(error.kind).toBe('timeout');
      expect(seconds).toBeLessThan(2.5);
      expect(emulator.requests).toHaveLength(2);
      // The first call's reply was read and costed; the second ended at the deadline.
      expect(records.map((record) => record.error?.kind ?? 'reply')).toEqual(['reply', 'timeout']);
    });

    it('lets a call that ends in time answer as usual, and leaves a cancelled call "aborted"', async () => {
      const { adapter } = await setUp(wire, { faults: [{ requests: 2, delayMs: 2_000 }] });

      const response = await adapter.complete({
        model: 'primary-flash',
        messages: question,
        deadlineSeconds: 5,
      });
      expect(response.content).toEqual(expect.any(String));

      const controller = new AbortController();
      const call = adapter.complete({
        model: 'primary-flash',
        messages: question,
        deadlineSeconds: 5,
        signal: controller.signal,
      });
      setTimeout(() => controller.abort(new Error('user pressed Ctrl-C')), 100);
      const { error } = await timed(call);
      expect(error.kind).toBe('aborted');
    });

    it('refuses a deadline that is not a positive number of seconds, naming the field', async () => {
      const { adapter, emulator } = await setUp(wire);
      for (const deadlineSeconds of [0, -1, Number.NaN, Number.POSITIVE_INFINITY]) {
        await expect(
          adapter.complete({ model: 'primary-flash', messages: question, deadlineSeconds }),
        ).rejects.toThrow(/^request\.deadlineSeconds must be a positive finite number of seconds/);
      }
      expect(emulator.requests).toHaveLength(0);
    });
  });
});
