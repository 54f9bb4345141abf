import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { startEmulator } from '@switchboard/emulator';
import { afterEach, describe, expect, it } from 'vitest';
import { ChatAdapter, type ChatMessage } from '../../src/index.js';
import { failureOf } from '../support/failure-of.js';
import { closeLoopbackServers, listenOnLoopback } from '../support/listen-on-loopback.js';
import { runBuiltScript } from '../support/run-built-script.js';
import { WIRE_TRANSPORTS } from '../support/wire-transports.js';

// Resource hygiene (issue 5): the emulator and the transports leave no open handles once the
// emulator is closed, and a timed-out request is aborted — its socket closed — not left running.

const KEY = 'reliability-hygiene-key-0b9a';
const MODEL = 'primary-flash';
const question: ChatMessage[] = [{ role: 'user', content: 'Is the queue drained?' }];
const HANDLE_TYPES = ['TCPServerWrap', 'TCPSocketWrap', 'Timeout'] as const;

function handleCounts(): Record<string, number> {
  const counts: Record<string, number> = Object.fromEntries(HANDLE_TYPES.map((type) => [type, 0]));
  for (const type of process.getActiveResourcesInfo())
    if (type in counts) counts[type] = (counts[type] ?? 0) + 1;
  return counts;
}

/**
 * Waits until there are no more servers, sockets and timers than at `baseline`. Handles are
 * released a moment after close() resolves, so this polls (taking each count between sleeps,
 * when no sleep timer of its own is pending); it fails with the counts if they stay higher.
 */
async function expectHandlesBackTo(baseline: Record<string, number>): Promise<void> {
  let counts = handleCounts();
  for (let poll = 0; poll < 500; poll += 1) {
    if (HANDLE_TYPES.every((type) => (counts[type] ?? 0) <= (baseline[type] ?? 0))) return;
    await sleep(10);
    counts = handleCounts();
  }
  expect(counts).toEqual(baseline);
}

/** How a raw server saw one request end. */
interface Seen {
  /** Resolves when the request's connection closed; `finished` tells whether a whole answer was sent. */
  closed: Promise<{ finished: boolean }>;
}

afterEach(closeLoopbackServers);

/** A loopback server that never finishes an answer: no headers at all, or headers and half a body. */
async function stallingServer(mode: 'no headers' | 'headers, then a stalled body') {
  const seen: Seen[] = [];
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    request.resume();
    seen.push({
      closed: new Promise((resolve) => {
        response.on('close', () => resolve({ finished: response.writableFinished }));
      }),
    });
    if (mode === 'headers, then a stalled body') {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.write('{"choices": [');
    }
  });
  const baseUrl = await listenOnLoopback(server);
  const connections = () =>
    new Promise<number>((resolve, reject) =>
      server.getConnections((error, count) => (error ? reject(error) : resolve(count))),
    );
  return { baseUrl, seen, connections };
}

// The handle counts first, for both transports: the timed-out requests after them leave handles
// that close a moment later.
describe('resource hygiene', () => {
  describe.each(WIRE_TRANSPORTS)('the emulator and $name after close()', (wire) => {
    it('leave no server, socket or timer open after calls that succeeded, timed out, were reset or listed models', async () => {
      const baseline = handleCounts();
      const emulator = await startEmulator({ key: KEY });
      const transport = wire.make({ apiKey: KEY, baseUrl: emulator.url, maxAttempts: 2 });
      const adapter = new ChatAdapter(transport);
      await adapter.complete({ model: MODEL, messages: question });
      await adapter.bounded(8).complete({ model: MODEL, messages: question });
      emulator.setFaults([{ delayMs: 600_000 }]);
      expect(
        (await failureOf(adapter.complete({ model: MODEL, messages: question, timeoutSeconds: 0.2 }))).kind,
      ).toBe('timeout');
      emulator.setFaults([{ reset: true, times: 1 }]);
      await adapter.complete({ model: MODEL, messages: question });
      await transport.listModels();
      expect(handleCounts().TCPServerWrap).toBeGreaterThan(baseline.TCPServerWrap ?? 0);

      await emulator.close();
      await expectHandlesBackTo(baseline);
    }, 15_000);

    it('ends a call still waiting in a fault delay when the emulator closes, and leaves nothing open', async () => {
      const baseline = handleCounts();
      const emulator = await startEmulator({ key: KEY, faults: [{ delayMs: 600_000 }] });
      const adapter = new ChatAdapter(wire.make({ apiKey: KEY, baseUrl: emulator.url, maxAttempts: 1 }));
      const pending = failureOf(adapter.complete({ model: MODEL, messages: question, timeoutSeconds: 600 }));
      while (emulator.requests.length === 0) await sleep(5);

      await emulator.close();
      expect((await pending).kind).toBe('connection');
      await expectHandlesBackTo(baseline);
    }, 15_000);
  });

  describe.each(WIRE_TRANSPORTS)('a timed-out request over $name', (wire) => {
    it.each([['no headers'], ['headers, then a stalled body']] as const)(
      'is aborted when the server sends %s: the server sees its connection close without an answer',
      async (mode) => {
        const server = await stallingServer(mode);
        const transport = wire.make({ apiKey: KEY, baseUrl: server.baseUrl, maxAttempts: 1 });
        const error = await failureOf(
          new ChatAdapter(transport).complete({ model: MODEL, messages: question, timeoutSeconds: 0.2 }),
        );

        expect(error.kind).toBe('timeout');
        expect(server.seen).toHaveLength(1);
        // Hangs (and the test times out) if the request were left running.
        expect(await server.seen[0]?.closed).toEqual({ finished: false });
        expect(await server.connections()).toBe(0);
      },
    );

    it('is aborted on every attempt when retried: each of the attempts’ connections closes', async () => {
      const server = await stallingServer('no headers');
      const transport = wire.make({ apiKey: KEY, baseUrl: server.baseUrl, maxAttempts: 2 });
      const error = await failureOf(
        new ChatAdapter(transport).complete({ model: MODEL, messages: question, timeoutSeconds: 0.2 }),
      );

      expect(error.kind).toBe('timeout');
      expect(server.seen).toHaveLength(2);
      expect(await Promise.all(server.seen.map((seen) => seen.closed))).toEqual([
        { finished: false },
        { finished: false },
      ]);
      expect(await server.connections()).toBe(0);
    });

    it('is aborted when listing models times out too', async () => {
      const server = await stallingServer('no headers');
      const transport = wire.make({ apiKey: KEY, baseUrl: server.baseUrl, maxAttempts: 1 });
      const error = await failureOf(transport.listModels({ timeoutSeconds: 0.2 }));

      expect(error.kind).toBe('timeout');
      expect(await server.seen[0]?.closed).toEqual({ finished: false });
    });
  });
});

describe('resource hygiene of the built package', () => {
  it('lets a process that started an emulator, made calls and closed it exit by itself', async () => {
    // A generous bound: the child needs well under a second, but a handle left open keeps it
    // alive for the emulator's 600 s fault delay or forever.
    const { stdout, stderr, ...exit } = await runBuiltScript('call-and-close.mjs', { boundMs: 20_000 });
    expect({ ...exit, stderr }).toEqual({ code: 0, signal: null, exitedByItself: true, stderr: '' });
    expect(JSON.parse(stdout)).toEqual({
      answered: 'resolved',
      timedOut: 'timeout',
      reset: 'connection',
      models: ['primary-flash', 'primary-v4-pro'],
    });
  }, 30_000);
});
