// A slow but healthy PostgreSQL makes calls wait, never refuses them as unreachable (issue 39 §2):
// another session holds the scope's row lock, so every acquisition waits on the server, more of
// them than the pool has connections, for longer than the pool's connectionTimeoutMillis (2 s).
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresBudgetStore } from '../src/postgres-store.js';
import type { StoredScope } from '../src/scope-limits.js';
import { startPostgres, type TestPostgres } from './support/start-postgres.js';

const SCHEMA = 'slow';
/** The pool a store makes from a url, and its connectionTimeoutMillis. */
const POOL_SIZE = 10;
const POOL_CONNECT_TIMEOUT_MS = 2000;
const CALLS = 3 * POOL_SIZE;

describe('PostgresBudgetStore on a busy server', () => {
  let postgres: TestPostgres;
  beforeAll(async () => {
    postgres = await startPostgres();
  });
  afterAll(() => postgres?.stop());

  it(`${CALLS} acquisitions waiting on a held row lock past the pool's connect timeout all wait and are granted; never more than ${POOL_SIZE} connections`, async () => {
    const store = new PostgresBudgetStore({ url: postgres.url, schema: SCHEMA });
    const admin = new pg.Client({ connectionString: postgres.url });
    await admin.connect();
    const locker = new pg.Client({ connectionString: postgres.url });
    await locker.connect();
    try {
      const scopes: StoredScope[] = [{ key: '{busy}', limitNanoUsd: 1_000_000, maxInFlight: null }];
      const lease = () => ({ leaseId: randomUUID(), scopes, amountNanoUsd: 10, ttlMs: 120_000 });
      // Each call in a chain of its own under the locked root: acquisitions of one chain would go to the
      // server together (one statement), and this is about more statements than connections.
      let chains = 0;
      const ownChain = () => {
        chains += 1;
        const chain = [...scopes, { key: `{busy}/c${chains}`, limitNanoUsd: null, maxInFlight: null }];
        return { ...lease(), scopes: chain };
      };
      // The scope's row exists, and the store holds its connections' sessions.
      expect(await store.acquire(lease())).toMatchObject({ granted: true });
      await locker.query('BEGIN');
      await locker.query(`SELECT * FROM ${SCHEMA}.budget_scopes WHERE scope_key = $1 FOR UPDATE`, ['{busy}']);
      const lockedAt = performance.now();
      const calls = Array.from({ length: CALLS }, () =>
        store.acquire(ownChain()).then(
          (result) => ({ ok: true as const, result }),
          (error: unknown) => ({ ok: false as const, error: String(error) }),
        ),
      );
      // Every connection of the pool waits on the lock (an event on the server), and the pool's
      // connect timeout has passed for the calls behind them.
      const waiting = async () =>
        Number(
          (
            await admin.query(
              "SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND pid <> pg_backend_pid()",
            )
          ).rows[0]?.n,
        );
      let mostConnections = 0;
      const connections = async () =>
        Number(
          (
            await admin.query(
              "SELECT count(*)::int AS n FROM pg_stat_activity WHERE backend_type = 'client backend' AND pid NOT IN (pg_backend_pid(), $1)",
              [(locker as unknown as { processID: number }).processID],
            )
          ).rows[0]?.n,
        );
      while ((await waiting()) < POOL_SIZE || performance.now() - lockedAt < POOL_CONNECT_TIMEOUT_MS * 1.5) {
        mostConnections = Math.max(mostConnections, await connections());
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      mostConnections = Math.max(mostConnections, await connections());
      await locker.query('COMMIT');
      const outcomes = await Promise.all(calls);
      const refused = outcomes.filter((outcome) => !outcome.ok);
      expect(refused, JSON.stringify(refused.slice(0, 3))).toEqual([]);
      for (const outcome of outcomes) expect(outcome.ok && outcome.result.granted).toBe(true);
      expect(mostConnections).toBeLessThanOrEqual(POOL_SIZE);
      const [root] = await store.counters(scopes);
      expect(root).toMatchObject({ reservedNanoUsd: 10 * (CALLS + 1), inFlight: CALLS + 1 });
    } finally {
      await locker.end().catch(() => {});
      await admin.end();
      await store.close();
    }
  }, 120_000);
});
