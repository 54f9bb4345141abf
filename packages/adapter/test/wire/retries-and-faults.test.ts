import type { EmulatorOptions } from '@switchboard/emulator';
import { closeTestEmulators, startTestEmulator } from '@switchboard/test-support';
import { afterEach, describe, expect, it } from 'vitest';
import { ChatAdapter, type ChatMessage } from '../../src/index.js';
import { failureOf } from '../support/failure-of.js';
import { closeLoopbackServers } from '../support/listen-on-loopback.js';
import { wireTap } from '../support/wire-tap.js';
import { WIRE_TRANSPORTS, type WireTransportCase } from '../support/wire-transports.js';

// Spec 8 (limits): the empty-JSON retry, the transport's retries of unbounded calls, the bounded copy's
// single attempt and the per-attempt timeout, counted in requests the emulator received.

const KEY = 'wire-test-key-5a90';
const question: ChatMessage[] = [{ role: 'user', content: 'Which findings are still open?' }];

afterEach(async () => {
  await closeLoopbackServers();
  await closeTestEmulators();
});

/** What the client saw of each HTTP response: its status and retry headers. */
interface Seen {
  status: number;
  retryAfter: string | null;
}

/** An emulator, and an adapter over a transport to it through a tap that notes each reply's status. */
async function setUp(wire: WireTransportCase, options: EmulatorOptions = {}, maxAttempts?: number) {
  const emulator = await startTestEmulator({ key: KEY, ...options });
  const tap = await wireTap(emulator.url);
  const transport = wire.make({
    apiKey: KEY,
    baseUrl: tap.url,
    ...(maxAttempts === undefined ? {} : { maxAttempts }),
  });
  const seen = (): Seen[] =>
    tap.replies.map((reply) => ({ status: reply.status, retryAfter: header(reply.headers['retry-after']) }));
  return { emulator, seen, transport, adapter: new ChatAdapter(transport) };
}

function header(value: string | string[] | undefined): string | null {
  return typeof value === 'string' ? value : null;
}

describe.each(WIRE_TRANSPORTS)('over $name', (wire) => {
  describe('ChatAdapter over JSON mode answering empty (spec 8)', () => {
    describe('an unbounded adapter', () => {
      it('makes exactly two requests, the same body twice, and returns the second, non-empty answer', async () => {
        const { emulator, adapter } = await setUp(wire, { emptyJson: [1] });
        const response = await adapter.complete({
          model: 'primary-flash',
          messages: question,
          jsonObject: true,
        });

        expect(emulator.requests).toHaveLength(2);
        expect(emulator.requests[1]?.body).toEqual(emulator.requests[0]?.body);
        expect(JSON.parse(response.content ?? '')).toEqual(expect.objectContaining({ findings: [] }));
        expect(adapter.usage).toHaveLength(2);
      });

      it('retries only once, returning the empty content when the retry is empty too', async () => {
        const { emulator, adapter } = await setUp(wire, { emptyJson: true });
        const response = await adapter.complete({
          model: 'primary-flash',
          messages: question,
          jsonObject: true,
        });

        expect(emulator.requests).toHaveLength(2);
        expect(response.content).toBe('');
      });

      it('makes one request when the empty content was not asked for in JSON mode', async () => {
        const { emulator, adapter } = await setUp(wire, { faults: [{ emptyContent: true, times: 1 }] });
        const response = await adapter.complete({ model: 'primary-flash', messages: question });

        expect(emulator.requests).toHaveLength(1);
        expect(response.content).toBe('');
      });
    });

    describe('a bounded copy', () => {
      it('makes exactly one request and returns the empty content', async () => {
        const { emulator, adapter } = await setUp(wire, { emptyJson: [1] });
        const response = await adapter
          .bounded(64)
          .complete({ model: 'primary-flash', messages: question, jsonObject: true });

        expect(emulator.requests).toHaveLength(1);
        expect(response.content).toBe('');
      });
    });
  });

  describe('ChatAdapter over transient failures of unbounded calls', () => {
    describe('a 503 and then a 200', () => {
      it('succeeds after two requests, the second marked as the first retry', async () => {
        const { emulator, seen, adapter } = await setUp(wire, {
          faults: [{ status: 503, times: 1, retryAfterMs: 10 }],
        });
        const response = await adapter.complete({ model: 'primary-flash', messages: question });

        expect(seen().map((entry) => entry.status)).toEqual([503, 200]);
        expect(emulator.requests).toHaveLength(2);
        expect(emulator.requests[1]?.headers['x-stainless-retry-count']).toBe('1');
        expect(emulator.requests[1]?.body).toEqual(emulator.requests[0]?.body);
        expect(response.content).toEqual(expect.stringContaining('Answer to: Which findings are still open'));
      });
    });

    describe('a 429 with retry-after and then a 200', () => {
      it('waits as told and succeeds on the second request', async () => {
        const { emulator, seen, adapter } = await setUp(wire, {
          faults: [{ status: 429, times: 1, retryAfter: 1 }],
        });
        const response = await adapter.complete({ model: 'primary-flash', messages: question });

        expect(seen()).toEqual([
          { status: 429, retryAfter: '1' },
          { status: 200, retryAfter: null },
        ]);
        expect(emulator.requests).toHaveLength(2);
        expect(response.content).toEqual(expect.any(String));
        expect(adapter.usage).toHaveLength(1);
      });
    });

    describe('a 429 on every attempt', () => {
      it('gives up after maxAttempts requests with ChatError "rate_limited", status 429, retryable', async () => {
        const { emulator, adapter } = await setUp(wire, { faults: [{ status: 429, retryAfterMs: 5 }] }, 2);
        const failure = await failureOf(adapter.complete({ model: 'primary-flash', messages: question }));

        expect(emulator.requests).toHaveLength(2);
        expect(failure).toMatchObject({ kind: 'rate_limited', status: 429, retryable: true });
      });
    });
  });

  describe('ChatAdapter over a 500 on every request', () => {
    describe('a bounded copy', () => {
      it('makes exactly one request and rejects with ChatError "server", status 500', async () => {
        const { emulator, adapter } = await setUp(wire, { faults: [{ status: 500, retryAfterMs: 5 }] });
        const failure = await failureOf(
          adapter.bounded(32).complete({ model: 'primary-flash', messages: question }),
        );

        expect(emulator.requests).toHaveLength(1);
        expect(failure).toMatchObject({ kind: 'server', status: 500, retryable: true, degradation: false });
        expect(failure.message).toContain('500');
      });
    });

    describe('the unbounded original over a three-attempt transport', () => {
      it('makes three requests before rejecting with ChatError "server"', async () => {
        const { emulator, transport, adapter } = await setUp(wire, {
          faults: [{ status: 500, retryAfterMs: 5 }],
        });
        const failure = await failureOf(adapter.complete({ model: 'primary-flash', messages: question }));

        expect(transport.maxAttempts).toBe(3);
        expect(emulator.requests).toHaveLength(3);
        expect(failure).toMatchObject({ kind: 'server', status: 500 });
      });
    });
  });

  describe('ChatAdapter over timeoutSeconds (spec 8)', () => {
    describe('a server slower than the timeout, with a single attempt', () => {
      it('rejects with ChatError "timeout", without an HTTP status', async () => {
        const { emulator, adapter } = await setUp(wire, { faults: [{ delayMs: 2000 }] }, 1);
        const failure = await failureOf(
          adapter.complete({ model: 'primary-flash', messages: question, timeoutSeconds: 0.2 }),
        );

        expect(emulator.requests).toHaveLength(1);
        expect(failure).toMatchObject({ kind: 'timeout', status: null, retryable: true });
        expect(failure.message).toContain('200 ms');
      });
    });

    describe('a slow first attempt and a prompt second one', () => {
      it('applies the timeout per attempt: the retry succeeds', async () => {
        // One second leaves the prompt attempt ample time on a busy machine.
        const { emulator, adapter } = await setUp(wire, { faults: [{ delayMs: 4000, times: 1 }] }, 2);
        const response = await adapter.complete({
          model: 'primary-flash',
          messages: question,
          timeoutSeconds: 1,
        });

        expect(emulator.requests).toHaveLength(2);
        expect(response.content).toEqual(expect.any(String));
      });
    });

    describe('a bounded copy of an adapter over a three-attempt transport', () => {
      it('times out after its single attempt', async () => {
        const { emulator, adapter } = await setUp(wire, { faults: [{ delayMs: 2000 }] });
        const failure = await failureOf(
          adapter.bounded(32).complete({ model: 'primary-flash', messages: question, timeoutSeconds: 0.2 }),
        );

        expect(emulator.requests).toHaveLength(1);
        expect(failure.kind).toBe('timeout');
      });
    });
  });

  describe('ChatAdapter over replies that cannot be read', () => {
    describe('a 200 whose JSON body is cut in half', () => {
      it('rejects with ChatError "bad_reply" after one request', async () => {
        const { emulator, adapter } = await setUp(wire, { faults: [{ truncate: true }] });
        const failure = await failureOf(adapter.complete({ model: 'primary-flash', messages: question }));

        expect(emulator.requests).toHaveLength(1);
        expect(failure).toMatchObject({ kind: 'bad_reply', status: 200 });
      });
    });

    describe('a 200 with an HTML page', () => {
      it('rejects with ChatError "bad_reply"', async () => {
        const { adapter } = await setUp(wire, {
          faults: [{ body: '<html><body>Gateway says hello</body></html>' }],
        });
        const failure = await failureOf(adapter.complete({ model: 'primary-flash', messages: question }));

        expect(failure).toMatchObject({ kind: 'bad_reply', status: 200 });
        expect(failure.message).toContain('not valid JSON');
      });
    });

    describe('a connection reset, with a single attempt', () => {
      it('rejects with ChatError "connection", retryable, without an HTTP status', async () => {
        const { emulator, adapter } = await setUp(wire, { faults: [{ reset: true }] }, 1);
        const failure = await failureOf(adapter.complete({ model: 'primary-flash', messages: question }));

        expect(emulator.requests).toHaveLength(1);
        expect(failure).toMatchObject({ kind: 'connection', status: null, retryable: true });
      });
    });

    describe('a reply with no choices', () => {
      it('reads it as an empty message and still records its usage (spec 4.2)', async () => {
        const { adapter } = await setUp(wire, { faults: [{ noChoices: true }] });
        const response = await adapter.complete({ model: 'primary-flash', messages: question });

        expect(response).toMatchObject({ content: null, toolCalls: [], reasoning: null, finishReason: null });
        expect(adapter.usage).toHaveLength(1);
        expect(adapter.usage[0]?.prompt_tokens).toEqual(expect.any(Number));
      });
    });
  });
});
