import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { inspect } from 'node:util';
import { type FaultRule, startEmulator } from '@switchboard/emulator';
import { sharedEmulator } from '@switchboard/test-support';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ChatAdapter, ChatError, type ChatMessage, OpenAITransport } from '../../src/index.js';
import { rejectionOf } from '../support/failure-of.js';
import { closeLoopbackServers, listenOnLoopback } from '../support/listen-on-loopback.js';
import { WIRE_TRANSPORTS, type WireTransportCase } from '../support/wire-transports.js';

// Secrets (issue 5): with a unique canary key, nothing the library returns or throws shows it —
// not a message, a stack, util.inspect at any depth, JSON.stringify, nor any error in a cause
// chain — including the SDK's own errors, whose requests carried the key in their headers.

const CANARY = `sk-canary-${randomUUID()}`;
const MODEL = 'primary-flash';
const question: ChatMessage[] = [{ role: 'user', content: 'Summarise the open incidents.' }];

/** Every error reachable from a value: itself, its `cause` chain and `errors` lists. */
function errorsIn(value: unknown, seen = new Set<unknown>()): unknown[] {
  if (value === null || typeof value !== 'object' || seen.has(value)) return [];
  seen.add(value);
  const found: unknown[] = value instanceof Error ? [value] : [];
  const record = value as { cause?: unknown; errors?: unknown };
  found.push(...errorsIn(record.cause, seen));
  if (Array.isArray(record.errors)) for (const inner of record.errors) found.push(...errorsIn(inner, seen));
  return found;
}

/** JSON text of a value with errors spelled out (name, message, stack, cause and own fields). */
function errorAwareJson(value: unknown): string {
  const seen = new WeakSet<object>();
  return (
    JSON.stringify(value, (_key, current: unknown) => {
      if (typeof current === 'bigint') return current.toString();
      if (current !== null && typeof current === 'object') {
        if (seen.has(current)) return '[circular]';
        seen.add(current);
        if (current instanceof Error) {
          const fields: Record<string, unknown> = {};
          for (const name of Object.getOwnPropertyNames(current)) fields[name] = (current as never)[name];
          return {
            name: current.name,
            message: current.message,
            stack: current.stack,
            cause: current.cause,
            ...fields,
          };
        }
      }
      return current;
    }) ?? ''
  );
}

/** Every text a value can be shown as. */
function renderings(value: unknown): string[] {
  const texts = [
    inspect(value, { depth: Number.POSITIVE_INFINITY, showHidden: true, getters: true }),
    inspect(value, { depth: Number.POSITIVE_INFINITY, showHidden: true, showProxy: true }),
    String(value),
    errorAwareJson(value),
  ];
  try {
    texts.push(JSON.stringify(value) ?? '');
  } catch (error) {
    texts.push(`JSON.stringify threw: ${String(error)}`);
  }
  for (const error of errorsIn(value)) {
    const { message, stack } = error as Error;
    texts.push(
      String(message),
      String(stack),
      inspect(error, { depth: Number.POSITIVE_INFINITY, showHidden: true }),
    );
  }
  return texts;
}

function expectNoCanary(value: unknown): void {
  for (const text of renderings(value)) expect(text).not.toContain(CANARY);
}

const emulator = sharedEmulator({ key: CANARY });

afterEach(closeLoopbackServers);

/** A loopback server that answers every request with `answer`. */
async function serve(answer: Parameters<typeof createServer>[1]): Promise<string> {
  return listenOnLoopback(createServer(answer));
}

/** A transport with the canary key: FetchTransport unless `wire` says (a given `fetch` is FetchTransport's alone). */
function transportTo(
  baseUrl: string,
  options: { maxAttempts?: number; fetch?: typeof fetch } = {},
  wire?: WireTransportCase,
) {
  const settings = { apiKey: CANARY, baseUrl, ...options, maxAttempts: options.maxAttempts ?? 1 };
  return wire === undefined ? new OpenAITransport(settings) : wire.make(settings);
}

const HTML_PAGE = '<html><body><h1>502 Bad Gateway</h1></body></html>';

const faults: Array<[string, FaultRule, number?]> = [
  ['429 with retry-after', { status: 429, retryAfter: 1, retryAfterMs: 5 }],
  ['500', { status: 500 }],
  ['503 (retried three times)', { status: 503 }, 3],
  ['connection reset', { reset: true }],
  ['a delay past the timeout', { delayMs: 2_000 }],
  ['a truncated JSON body', { truncate: true }],
  ['a non-JSON (HTML) error page', { status: 502, body: HTML_PAGE }],
  ['a non-JSON (HTML) page with 200', { body: HTML_PAGE }],
  ['an empty 200 body', { emptyBody: true }],
];

describe('the API key never shows', () => {
  describe.each(WIRE_TRANSPORTS)('over $name', (wire) => {
    describe('in what the library returns', () => {
      it('shows no key in the transport, its copies, the adapter, a bounded copy, responses, usage or the model list', async () => {
        const transport = transportTo(emulator().url, { maxAttempts: 3 }, wire);
        const adapter = new ChatAdapter(transport, { endpoint: { cost: () => 0.001 } });
        const bounded = adapter.bounded(16);
        const responses = [
          await adapter.complete({ model: MODEL, messages: question, logprobs: true }),
          await bounded.complete({ model: MODEL, messages: question, jsonObject: true }),
          await adapter.complete({ model: MODEL, messages: question, jsonObject: true }),
        ];
        const models = await transport.listModels();

        expect(responses.every((response) => typeof response.content === 'string')).toBe(true);
        expect(models).toContain(MODEL);
        for (const exhibit of [
          transport,
          transport.withMaxAttempts(1),
          adapter,
          bounded,
          responses,
          adapter.usage,
          bounded.usage,
          models,
        ]) {
          expectNoCanary(exhibit);
        }
        // What the emulator kept of the requests, as tests print it, is redacted too.
        expectNoCanary(emulator().requests);
        expect(emulator().requests[0]?.headers.authorization).toBe('Bearer [redacted]');
      });
    });

    describe('in errors raised for each fault kind', () => {
      it.each(faults)(
        'shows no key in the error for %s, its cause chain or the SDK error inside',
        async (_, rule, attempts) => {
          emulator().setFaults([rule]);
          const adapter = new ChatAdapter(transportTo(emulator().url, { maxAttempts: attempts ?? 1 }, wire));
          const error = await rejectionOf(
            adapter.complete({ model: MODEL, messages: question, timeoutSeconds: 0.25 }),
          );

          expect(ChatError.isInstance(error)).toBe(true);
          expect(errorsIn(error).length).toBeGreaterThanOrEqual(1);
          expectNoCanary(error);
          expectNoCanary(adapter);
        },
      );

      it('shows no key in a ModelRejectedError (400) or the model list failing', async () => {
        const transport = transportTo(emulator().url, {}, wire);
        const rejected = await rejectionOf(
          new ChatAdapter(transport).complete({ model: 'primary-v4.1-flash', messages: question }),
        );
        emulator().setFaults([{ path: '/models', status: 500 }]);
        const listing = await rejectionOf(transport.listModels());

        expect((rejected as ChatError).kind).toBe('model_rejected');
        expect((listing as ChatError).kind).toBe('server');
        expectNoCanary(rejected);
        expectNoCanary(listing);
      });

      it('shows no key in a 401 from a platform that expects another key', async () => {
        const other = await startEmulator({ key: 'another-key-entirely' });
        try {
          const error = await rejectionOf(
            new ChatAdapter(transportTo(other.url, {}, wire)).complete({ model: MODEL, messages: question }),
          );
          expect((error as ChatError).kind).toBe('auth');
          expectNoCanary(error);
        } finally {
          await other.close();
        }
      });

      it('shows no key in a 401 from a server that echoes the Authorization header in its body and headers', async () => {
        const baseUrl = await serve((request, response) => {
          const presented = String(request.headers.authorization);
          response.writeHead(401, { 'content-type': 'application/json', 'x-echo-authorization': presented });
          response.end(
            JSON.stringify({
              error: {
                message: `Incorrect API key provided: ${presented}`,
                type: 'invalid_request_error',
                param: presented,
              },
            }),
          );
        });
        const error = await rejectionOf(
          new ChatAdapter(transportTo(baseUrl, {}, wire)).complete({ model: MODEL, messages: question }),
        );

        expect((error as ChatError).kind).toBe('auth');
        expect((error as ChatError).message).toContain('Incorrect API key provided');
        expectNoCanary(error);
      });

      it('shows no key in a refused connection', async () => {
        const closing = createServer(() => {});
        const baseUrl = await listenOnLoopback(closing);
        await new Promise<void>((resolve) => closing.close(() => resolve()));
        const error = await rejectionOf(
          new ChatAdapter(transportTo(baseUrl, {}, wire)).complete({ model: MODEL, messages: question }),
        );

        expect((error as ChatError).kind).toBe('connection');
        expectNoCanary(error);
      });
    });
  });

  describe('in errors a custom fetch throws', () => {
    const deepCause = () => {
      let error = new Error(`the innermost error, sent with Authorization: Bearer ${CANARY}`);
      for (let depth = 0; depth < 12; depth += 1) error = new Error(`wrapper ${depth}`, { cause: error });
      return error;
    };
    const deepField = () => {
      let holder: Record<string, unknown> = { authorization: `Bearer ${CANARY}` };
      for (let depth = 0; depth < 12; depth += 1) holder = { inner: holder };
      return Object.assign(new Error('request failed'), { request: holder });
    };
    const throwers: Array<[string, () => unknown]> = [
      ['an error naming the key', () => new TypeError(`fetch failed for key ${CANARY}`)],
      ['an error whose cause chain names the key twelve levels down', deepCause],
      ['an error holding the key in a field twelve levels deep', deepField],
      [
        'an error whose getter returns the key',
        () =>
          Object.defineProperty(new Error('request failed'), 'headers', {
            get: () => ({ authorization: `Bearer ${CANARY}` }),
          }),
      ],
      ['a string naming the key', () => `failed with ${CANARY}`],
    ];

    it.each(throwers)('shows no key when fetch throws %s', async (_, makeError) => {
      const throwing: typeof fetch = async () => {
        throw makeError();
      };
      const adapter = new ChatAdapter(transportTo('https://api.primary.example', { fetch: throwing }));
      const error = await rejectionOf(adapter.complete({ model: MODEL, messages: question }));

      expect(ChatError.isInstance(error)).toBe(true);
      expectNoCanary(error);
    });

    it('shows no key when the reply body fails mid-way with an error naming the key', async () => {
      const failingBody: typeof fetch = async () => {
        const body = new ReadableStream<Uint8Array>({
          pull(controller) {
            controller.error(new Error(`socket for ${CANARY} closed`));
          },
        });
        return new Response(body, { status: 200, headers: { 'content-type': 'application/json' } });
      };
      const adapter = new ChatAdapter(transportTo('https://api.primary.example', { fetch: failingBody }));
      const error = await rejectionOf(adapter.complete({ model: MODEL, messages: question }));

      expect((error as ChatError).kind).toBe('bad_reply');
      expectNoCanary(error);
    });
  });

  describe('in what the SDK logs', () => {
    const previous = process.env.OPENAI_LOG;

    afterEach(() => {
      vi.restoreAllMocks();
      if (previous === undefined) delete process.env.OPENAI_LOG;
      else process.env.OPENAI_LOG = previous;
    });

    it('prints no key with OPENAI_LOG=debug, for a call that succeeds and one that fails', async () => {
      process.env.OPENAI_LOG = 'debug';
      const printed: unknown[][] = [];
      for (const method of ['debug', 'info', 'log', 'warn', 'error'] as const) {
        vi.spyOn(console, method).mockImplementation((...args: unknown[]) => {
          printed.push(args);
        });
      }
      const adapter = new ChatAdapter(transportTo(emulator().url, { maxAttempts: 2 }));
      await adapter.complete({ model: MODEL, messages: question });
      emulator().setFaults([{ status: 503 }]);
      await rejectionOf(adapter.complete({ model: MODEL, messages: question }));

      // issue 10: OPENAI_LOG is neutralised, so the SDK prints nothing at all (it used to log
      // request details at debug level).
      expect(printed).toEqual([]);
    });
  });
});
