import { type FaultRule, promptTokens } from '@switchboard/emulator';
import { emptyChatResponse, sharedEmulator } from '@switchboard/test-support';
import { describe, expect, it } from 'vitest';
import {
  ChatAdapter,
  ChatError,
  type ChatErrorKind,
  type ChatMessage,
  type ChatResponse,
} from '../../src/index.js';
import { costSum, pricedAs } from '../support/priced-as.js';
import { WIRE_TRANSPORTS, type WireTransportCase } from '../support/wire-transports.js';

// The fault matrix of issue 5: each fault of the emulator's plan, against an unbounded adapter
// (maxAttempts 3, the transport retries 408/409/429/5xx, resets, timeouts and empty bodies) and a bounded copy (one
// attempt, spec 8). For each: the outcome, the attempts the emulator saw, the usage entries the
// call added (only for replies that arrived, never twice) and costUsd() (unchanged by failures).

const KEY = 'reliability-fault-key-3c1e';
const MODEL = 'primary-flash';
const costModel = pricedAs(MODEL);
const question: ChatMessage[] = [
  { role: 'user', content: 'Which services failed their health check today?' },
];
const TIMEOUT_SECONDS = 0.5;
const PAST_THE_TIMEOUT_MS = 5_000;
const HTML_PAGE =
  '<html><head><title>502 Bad Gateway</title></head><body><h1>502 Bad Gateway</h1></body></html>';

/** What one adapter does when the fault is planned. */
interface Expectation {
  /** `ok`: the call resolved; otherwise the ChatError kind it rejected with. */
  outcome: 'ok' | ChatErrorKind;
  /** The error's HTTP status (null when none); ignored for `ok`. */
  status?: number | null;
  /** The error's `retryable`; ignored for `ok`. */
  retryable?: boolean;
  /** A part of the error message saying what went wrong; ignored for `ok`. */
  detail?: string;
  /** Chat requests the emulator received for the call. */
  attempts: number;
  /** Usage entries the call added to the adapter's ledger. */
  entries: number;
}

interface FaultCase {
  name: string;
  plan: FaultRule[];
  jsonObject?: boolean;
  timeoutSeconds?: number;
  /** Checks the response of a call that resolved. */
  response?: (response: ChatResponse) => void;
  unbounded: Expectation;
  bounded: Expectation;
  /**
   * What differs over NodeTransport: a request a kept connection reset before any reply is sent
   * once more on a new connection, within the same attempt (the warm-up call left that connection
   * in the pool); a reset on a new connection is not.
   */
  onNodeTransport?: { unbounded?: Expectation; bounded?: Expectation };
}

const chat = { path: '/chat/completions' } as const;
const once = { ...chat, times: 1 } as const;

const failed = (
  kind: ChatErrorKind,
  status: number | null,
  attempts: number,
  detail: string,
): Expectation => ({
  outcome: kind,
  status,
  retryable: kind !== 'bad_reply' && kind !== 'bad_request',
  attempts,
  entries: 0,
  detail,
});
const succeeded = (attempts: number, entries = 1): Expectation => ({ outcome: 'ok', attempts, entries });

const matrix: FaultCase[] = [
  {
    name: '429 with retry-after: 1 (seconds), once',
    plan: [{ ...once, status: 429, retryAfter: 1 }],
    unbounded: succeeded(2),
    bounded: failed('rate_limited', 429, 1, '429 Too Many Requests: Rate limit reached'),
  },
  {
    name: '429 with retry-after and retry-after-ms, every time',
    plan: [{ ...chat, status: 429, retryAfter: 1, retryAfterMs: 10 }],
    unbounded: failed('rate_limited', 429, 3, '429 Too Many Requests: Rate limit reached'),
    bounded: failed('rate_limited', 429, 1, '429 Too Many Requests: Rate limit reached'),
  },
  {
    name: '500, once',
    plan: [{ ...once, status: 500 }],
    unbounded: succeeded(2),
    bounded: failed('server', 500, 1, '500 Internal Server Error: The server had an error'),
  },
  {
    name: '500, every time',
    plan: [{ ...chat, status: 500 }],
    unbounded: failed('server', 500, 3, '500 Internal Server Error: The server had an error'),
    bounded: failed('server', 500, 1, '500 Internal Server Error: The server had an error'),
  },
  {
    name: '503, once',
    plan: [{ ...once, status: 503 }],
    unbounded: succeeded(2),
    bounded: failed('server', 503, 1, '503 Service Unavailable: The server is overloaded'),
  },
  {
    name: '503, every time',
    plan: [{ ...chat, status: 503 }],
    unbounded: failed('server', 503, 3, '503 Service Unavailable: The server is overloaded'),
    bounded: failed('server', 503, 1, '503 Service Unavailable: The server is overloaded'),
  },
  {
    name: 'connection reset before any reply, once',
    plan: [{ ...once, reset: true }],
    unbounded: succeeded(2),
    bounded: failed('connection', null, 1, 'connection failed'),
    onNodeTransport: { bounded: succeeded(2) },
  },
  {
    name: 'connection reset before any reply, every time',
    plan: [{ ...chat, reset: true }],
    unbounded: failed('connection', null, 3, 'connection failed'),
    bounded: failed('connection', null, 1, 'connection failed'),
    onNodeTransport: {
      unbounded: failed('connection', null, 4, 'connection failed'),
      bounded: failed('connection', null, 2, 'connection failed'),
    },
  },
  {
    name: 'a delay past the timeout, once',
    plan: [{ ...once, delayMs: PAST_THE_TIMEOUT_MS }],
    timeoutSeconds: TIMEOUT_SECONDS,
    unbounded: succeeded(2),
    bounded: failed('timeout', null, 1, 'no reply within 500 ms (per attempt)'),
  },
  {
    name: 'a delay past the timeout, every time',
    plan: [{ ...chat, delayMs: PAST_THE_TIMEOUT_MS }],
    timeoutSeconds: TIMEOUT_SECONDS,
    unbounded: failed('timeout', null, 3, 'no reply within 500 ms (per attempt)'),
    bounded: failed('timeout', null, 1, 'no reply within 500 ms (per attempt)'),
  },
  {
    name: 'a truncated JSON body (200)',
    plan: [{ ...chat, truncate: true }],
    unbounded: failed('bad_reply', 200, 1, '200 OK: the reply is not valid JSON'),
    bounded: failed('bad_reply', 200, 1, '200 OK: the reply is not valid JSON'),
  },
  {
    name: 'a non-JSON (HTML) error page with 502, once',
    plan: [{ ...once, status: 502, body: HTML_PAGE }],
    unbounded: succeeded(2),
    bounded: failed('server', 502, 1, '502 Bad Gateway: <html>'),
  },
  {
    name: 'a non-JSON (HTML) error page with 502, every time',
    plan: [{ ...chat, status: 502, body: HTML_PAGE }],
    unbounded: failed('server', 502, 3, '502 Bad Gateway: <html>'),
    bounded: failed('server', 502, 1, '502 Bad Gateway: <html>'),
  },
  {
    name: 'a non-JSON (HTML) page with 200',
    plan: [{ ...chat, body: HTML_PAGE }],
    unbounded: failed('bad_reply', 200, 1, '200 OK: the reply is not valid JSON'),
    bounded: failed('bad_reply', 200, 1, '200 OK: the reply is not valid JSON'),
  },
  {
    // issue 10: an empty (or whitespace-only) 200 is a platform's overload answer, so it is retried.
    name: 'an empty 200 body',
    plan: [{ ...chat, emptyBody: true }],
    unbounded: { ...failed('bad_reply', 200, 3, '200 OK: the reply body is empty'), retryable: true },
    bounded: { ...failed('bad_reply', 200, 1, '200 OK: the reply body is empty'), retryable: true },
  },
  {
    name: 'a 200 with no choices (usage kept)',
    plan: [{ ...chat, noChoices: true }],
    response: (response) => {
      expect({ ...response, calls: [], costUsd: null, costNanoUsd: null }).toEqual(emptyChatResponse());
      expect(response.calls).toHaveLength(1);
    },
    unbounded: succeeded(1),
    bounded: succeeded(1),
  },
  {
    name: 'JSON mode answering empty content, once',
    plan: [{ ...once, emptyContent: true }],
    jsonObject: true,
    unbounded: succeeded(2, 2),
    bounded: succeeded(1, 1),
  },
];

const emulator = sharedEmulator({ key: KEY });

function adapterOf(wire: WireTransportCase, kind: 'unbounded' | 'bounded'): ChatAdapter {
  const transport = wire.make({ apiKey: KEY, baseUrl: emulator().url, maxAttempts: 3 });
  const adapter = new ChatAdapter(transport, { endpoint: costModel });
  return kind === 'bounded' ? adapter.bounded(4_096) : adapter;
}

async function settle(promise: Promise<ChatResponse>) {
  return promise.then(
    (response) => ({ response, error: undefined }),
    (error: unknown) => ({ response: undefined, error }),
  );
}

describe.each(WIRE_TRANSPORTS)('over $name', (wire) => {
  describe.each(['unbounded', 'bounded'] as const)('ChatAdapter (%s), under faults', (kind) => {
    it.each(matrix.map((fault) => [fault.name, fault] as const))('%s', async (_, fault) => {
      const expected =
        (wire.name === 'NodeTransport' ? fault.onNodeTransport?.[kind] : undefined) ?? fault[kind];
      const adapter = adapterOf(wire, kind);
      const request = {
        model: MODEL,
        messages: question,
        ...(fault.jsonObject ? { jsonObject: true } : {}),
        ...(fault.timeoutSeconds === undefined ? {} : { timeoutSeconds: fault.timeoutSeconds }),
      };

      // A fault-free call first, so the ledger and the cost are not empty before the fault.
      await adapter.complete({ model: MODEL, messages: [{ role: 'user', content: 'Warm up.' }] });
      const ledgerBefore = [...adapter.usage];
      const costBefore = adapter.costUsd();
      expect(ledgerBefore).toHaveLength(1);
      expect(costBefore).toBeGreaterThan(0);

      emulator().reset();
      emulator().setFaults(fault.plan);
      const { response, error } = await settle(adapter.complete(request));

      // Outcome.
      if (expected.outcome === 'ok') {
        expect(error).toBeUndefined();
        fault.response?.(response as ChatResponse);
      } else {
        expect(ChatError.isInstance(error)).toBe(true);
        const chatError = error as ChatError;
        expect({ kind: chatError.kind, status: chatError.status, retryable: chatError.retryable }).toEqual({
          kind: expected.outcome,
          status: expected.status,
          retryable: expected.retryable,
        });
        expect(chatError.message).toContain(`[POST] "${emulator().url}/chat/completions": `);
        expect(chatError.message).toContain(expected.detail);
      }

      // Attempts the emulator saw.
      expect(emulator().requests.map((received) => received.path)).toEqual(
        Array(expected.attempts).fill('/chat/completions'),
      );

      // Usage: only for replies that arrived, each once, the earlier entries untouched.
      expect(adapter.usage.slice(0, 1)).toEqual(ledgerBefore);
      const added = adapter.usage.slice(1);
      expect(added).toHaveLength(expected.entries);
      // An added entry is the reply to one of the last `entries` requests: its prompt size matches.
      const answered = emulator().requests.slice(emulator().requests.length - expected.entries);
      expect(added.map((entry) => entry.prompt_tokens)).toEqual(
        answered.map((received) => promptTokens(received.body as { messages: unknown[] }).length),
      );

      // Cost: the exact sum over the ledger; a failure leaves it as it was.
      expect(adapter.costUsd()).toBe(costSum(costModel, adapter.usage));
      if (expected.entries === 0) expect(adapter.costUsd()).toBe(costBefore);
      else expect(adapter.costUsd()).toBeGreaterThan(costBefore);

      // The adapter is still sound: the next fault-free call adds exactly one entry.
      emulator().setFaults([]);
      await adapter.complete({ model: MODEL, messages: question });
      expect(adapter.usage).toHaveLength(1 + expected.entries + 1);
      expect(adapter.costUsd()).toBe(costSum(costModel, adapter.usage));
    });
  });
});
