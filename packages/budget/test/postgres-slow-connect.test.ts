// A healthy PostgreSQL that is slow to start new backends (a loaded machine: each connection's start and
// authentication take seconds) makes calls wait, never refuses them as unreachable (issue 42): the store
// has answered before, or its connection reached the server, so a connection not made within the pool's
// connectionTimeoutMillis (2 s) is made again, within statementTimeoutMs. A host that never accepts the
// connection is still refused at the connect timeout.

import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresBudgetStore } from '../src/postgres-store.js';
import type { StoredScope } from '../src/scope-limits.js';
import { startPostgres, type TestPostgres } from './support/start-postgres.js';
import { until } from './support/until.js';

/** A loopback forwarder to the server that, while holding, keeps new connections waiting (counted). */
async function holdingForwarder(port: number) {
  let holding = false;
  let attempts = 0;
  const held: (() => void)[] = [];
  const open = new Set<Socket>();
  const server: Server = createServer((client) => {
    open.add(client);
    client.on('error', () => client.destroy());
    client.on('close', () => open.delete(client));
    const forward = () => {
      if (client.destroyed) return;
      const upstream = createConnection({ host: '127.0.0.1', port });
      open.add(upstream);
      upstream.on('error', () => upstream.destroy());
      upstream.on('close', () => {
        open.delete(upstream);
        client.destroy();
      });
      client.on('close', () => upstream.destroy());
      client.pipe(upstream);
      upstream.pipe(client);
    };
    if (!holding) {
      forward();
      return;
    }
    attempts += 1;
    client.pause();
    held.push(forward);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  return {
    port: typeof address === 'object' && address !== null ? address.port : 0,
    hold() {
      holding = true;
    },
    release() {
      holding = false;
      for (const forward of held.splice(0)) forward();
    },
    attempts: () => attempts,
    async close() {
      for (const socket of open) socket.destroy();
      server.close();
      await once(server, 'close');
    },
  };
}

/**
 * A loopback port where a connection is never made: a listener with a backlog of 1, stopped (SIGSTOP) so it
 * accepts nothing, its queue filled by two connections; the kernel then drops every further SYN.
 */
async function silentHost() {
  const child = spawn(
    process.execPath,
    [
      '-e',
      "const s = require('node:net').createServer(); s.listen({ port: 0, host: '127.0.0.1', backlog: 1 }, () => console.log(s.address().port))",
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const [chunk] = (await once(child.stdout, 'data')) as [Buffer];
  const port = Number(String(chunk).trim());
  child.kill('SIGSTOP');
  const fillers: Socket[] = [];
  for (let filled = 0; filled < 2; filled++) {
    const socket = createConnection({ host: '127.0.0.1', port });
    socket.on('error', () => socket.destroy());
    fillers.push(socket);
    await once(socket, 'connect');
  }
  return {
    port,
    close() {
      for (const socket of fillers) socket.destroy();
      child.kill('SIGKILL');
    },
  };
}

const SCOPES: StoredScope[] = [{ key: '{slow-connect}', limitNanoUsd: 1_000_000, maxInFlight: null }];
const lease = () => ({ leaseId: randomUUID(), scopes: SCOPES, amountNanoUsd: 10, ttlMs: 120_000 });

/** What the store's acquisition was refused with (it must be refused). */
async function refusalOf(store: PostgresBudgetStore): Promise<string> {
  const error = await store.acquire(lease()).then(
    () => null,
    (caught: Error) => caught,
  );
  expect(error).toBeInstanceOf(Error);
  return (error as Error).message;
}

describe('PostgresBudgetStore on a server slow to start connections', () => {
  let postgres: TestPostgres;
  beforeAll(async () => {
    postgres = await startPostgres();
  });
  afterAll(() => postgres?.stop());
  /** The server's url with another port: a forwarder's, or a host's that never answers. */
  const urlVia = (port: number) => postgres.url.replace(`:${postgres.port}/`, `:${port}/`);

  it('calls that need new connections wait past connectionTimeoutMillis and are granted', async () => {
    const forwarder = await holdingForwarder(postgres.port);
    const url = urlVia(forwarder.port);
    const store = new PostgresBudgetStore({ url, schema: 'slow_connect' });
    try {
      // The server answers through one connection; then new connections hang until released.
      expect(await store.acquire(lease())).toMatchObject({ granted: true });
      forwarder.hold();
      // Each in a chain of its own: acquisitions of one chain would go to the server together, on one connection.
      const calls = Array.from({ length: 4 }, (_, index) =>
        store
          .acquire({
            ...lease(),
            scopes: [...SCOPES, { key: `{slow-connect}/c${index}`, limitNanoUsd: null, maxInFlight: null }],
          })
          .then(
            (result) => ({ ok: true as const, result }),
            (error: unknown) => ({ ok: false as const, error: String(error) }),
          ),
      );
      // The three connections the calls wait for are tried, given up on (2 s), and tried again (one call may
      // take the connection the first call left idle): the event that the timeout passed. Then they start.
      await until(() => forwarder.attempts() >= 5, 'connections made again after their connect timeout', {
        deadlineMs: 60_000,
      });
      forwarder.release();
      const outcomes = await Promise.all(calls);
      expect(outcomes.filter((outcome) => !outcome.ok)).toEqual([]);
      const [root] = await store.counters(SCOPES);
      expect(root).toMatchObject({ reservedNanoUsd: 50, inFlight: 5 });
    } finally {
      await store.close();
      await forwarder.close();
    }
  }, 120_000);

  it('a fresh store waits for a server that accepts its connection but is slow to start it', async () => {
    const forwarder = await holdingForwarder(postgres.port);
    forwarder.hold();
    const url = urlVia(forwarder.port);
    const store = new PostgresBudgetStore({ url, schema: 'slow_connect' });
    try {
      const call = store.acquire(lease()).then(
        (result) => ({ ok: true as const, result }),
        (error: unknown) => ({ ok: false as const, error: String(error) }),
      );
      // Its first connection is given up on at 2 s and made again: the event that the store waited.
      await until(() => forwarder.attempts() >= 2, 'the first connection made again after its timeout', {
        deadlineMs: 60_000,
      });
      forwarder.release();
      expect(await call).toMatchObject({ ok: true, result: { granted: true } });
    } finally {
      await store.close();
      forwarder.release();
      await forwarder.close();
    }
  }, 120_000);

  it('a server that accepts connections but never starts one is refused after statementTimeoutMs', async () => {
    const forwarder = await holdingForwarder(postgres.port);
    forwarder.hold();
    const url = urlVia(forwarder.port);
    const store = new PostgresBudgetStore({ url, schema: 'slow_connect', statementTimeoutMs: 5_000 });
    try {
      const started = performance.now();
      expect(await refusalOf(store)).toMatch(/connectionTimeoutMillis/);
      // Tried until statementTimeoutMs had passed (2 s each), then refused: not waited for without end.
      expect(performance.now() - started).toBeGreaterThanOrEqual(5_000);
      expect(forwarder.attempts()).toBeGreaterThanOrEqual(3);
    } finally {
      await store.close();
      forwarder.release();
      await forwarder.close();
    }
  }, 60_000);

  it('a host that never accepts the connection is refused at the connect timeout, as unreachable', async () => {
    const host = await silentHost();
    const url = urlVia(host.port);
    const store = new PostgresBudgetStore({ url, schema: 'slow_connect' });
    try {
      const started = performance.now();
      expect(await refusalOf(store)).toMatch(/connectionTimeoutMillis/);
      // One connect timeout (2 s), not statementTimeoutMs (30 s) of them.
      expect(performance.now() - started).toBeLessThan(20_000);
    } finally {
      await store.close();
      host.close();
    }
  }, 60_000);
});
