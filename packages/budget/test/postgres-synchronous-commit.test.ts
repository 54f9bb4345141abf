// PostgresBudgetStore's `synchronousCommit` option: 'off' makes each settlement's own
// transaction commit without waiting for its WAL flush (synchronous_commit = off, for that
// transaction only); reservations, and every operation by default, wait for the disk.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresBudgetStore } from '../src/postgres-store.js';
import { startPostgres, type TestPostgres } from './support/start-postgres.js';

describe("PostgresBudgetStore's synchronousCommit", () => {
  let postgres: TestPostgres;
  beforeAll(async () => {
    postgres = await startPostgres();
  });
  afterAll(() => postgres?.stop());

  it("accepts 'on' and 'off' only", () => {
    expect(
      () => new PostgresBudgetStore({ url: 'postgres://u@127.0.0.1/db', synchronousCommit: 'local' as 'on' }),
    ).toThrow(/synchronousCommit must be 'on' or 'off', got "local"/);
  });

  /** A caller's pool whose connections note the synchronous_commit each statement ran under. */
  function watchedPool() {
    const pool = new pg.Pool({ connectionString: postgres.url, max: 2 });
    const seen: { statement: string; setting: string }[] = [];
    const watched = new WeakSet<object>();
    const connect = pool.connect.bind(pool);
    (pool as unknown as { connect: () => Promise<pg.PoolClient> }).connect = async () => {
      const client = await connect();
      // A pooled connection comes back: watched once.
      if (watched.has(client)) return client;
      watched.add(client);
      const query = client.query.bind(client) as (
        text: string | pg.QueryConfig,
        values?: unknown[],
      ) => Promise<pg.QueryResult>;
      // The store sends a statement as text and values, or as a config carrying its own query_timeout.
      type Sent = string | pg.QueryConfig;
      (client as unknown as { query: unknown }).query = async (sent: Sent, values?: unknown[]) => {
        const text = typeof sent === 'string' ? sent : sent.text;
        if (!/^SELECT .*\.budget_(acquire|settle)\(\$1/.test(text)) return query(sent, values);
        // The statement and SHOW in one transaction: what its commit will use.
        await query('BEGIN');
        try {
          const result = await query(sent, values);
          const [row] = (await query('SHOW synchronous_commit')).rows;
          seen.push({
            statement: /budget_acquire/.test(text) ? 'acquire' : 'settle',
            setting: row.synchronous_commit,
          });
          await query('COMMIT');
          return result;
        } catch (error) {
          await query('ROLLBACK');
          throw error;
        }
      };
      return client;
    };
    return { pool, seen };
  }

  for (const [option, settle] of [
    [undefined, 'on'],
    ['on', 'on'],
    ['off', 'off'],
  ] as const) {
    it(`${option === undefined ? 'by default' : `'${option}'`}: reservations commit on, settlements ${settle}`, async () => {
      const { pool, seen } = watchedPool();
      const store = new PostgresBudgetStore({
        pool,
        schema: `sync_${option ?? 'default'}`,
        ...(option === undefined ? {} : { synchronousCommit: option }),
      });
      const scopes = [{ key: '{sync}', limitNanoUsd: 100, maxInFlight: null }];
      expect(await store.acquire({ leaseId: 'l1', scopes, amountNanoUsd: 40, ttlMs: 10_000 })).toMatchObject({
        granted: true,
      });
      expect(await store.settle('l1', scopes, { actualNanoUsd: 30 })).toBe(true);
      expect(await store.counters(scopes)).toEqual([
        { spentNanoUsd: 30, reservedNanoUsd: 0, inFlight: 0, unsettledNanoUsd: 0, unsettledCalls: 0 },
      ]);
      expect(seen).toEqual([
        { statement: 'acquire', setting: 'on' },
        { statement: 'settle', setting: settle },
      ]);
      // Only that transaction: the connection's next one is back to the server's setting.
      const client = await pool.connect();
      expect((await client.query('SHOW synchronous_commit')).rows[0].synchronous_commit).toBe('on');
      client.release();
      await store.close();
      await pool.end();
    });
  }
});

// The server's own synchronous_commit = off (issue 40 §3): a store left 'on' still answers a grant (and a
// settlement) only once it is on disk, so a crash right after loses none. The WAL writer is told to wait
// its longest (10 s) and the background writer to write nothing, so without the store's own setting the
// newest commits are only in memory when the server is killed.
describe("PostgresBudgetStore on a server whose synchronous_commit is 'off'", () => {
  let postgres: TestPostgres;
  beforeAll(async () => {
    postgres = await startPostgres({
      settings: {
        synchronous_commit: 'off',
        wal_writer_delay: '10s',
        bgwriter_lru_maxpages: '0',
        autovacuum: 'off',
      },
    });
  });
  afterAll(() => postgres?.stop());

  it('keeps every grant, and every settlement of a store left on, through a SIGKILL right after them', async () => {
    const admin = new pg.Client({ connectionString: postgres.url });
    await admin.connect();
    expect((await admin.query('SHOW synchronous_commit')).rows[0].synchronous_commit).toBe('off');
    const scopes = [{ key: '{crash-sync}', limitNanoUsd: 1_000_000, maxInFlight: null }];
    const durable = new PostgresBudgetStore({ url: postgres.url, schema: 'crash_sync' });
    // Grants of a store whose settlements are not waited for (synchronousCommit 'off') are on disk too.
    const hurried = new PostgresBudgetStore({
      url: postgres.url,
      schema: 'crash_sync',
      synchronousCommit: 'off',
    });
    await durable.migrate();
    await hurried.migrate();
    // The tables themselves on disk: only the budget's own commits are at stake.
    await admin.query('CHECKPOINT');
    await admin.end();
    const lease = (leaseId: string) => ({ leaseId, scopes, amountNanoUsd: 1000, ttlMs: 600_000 });
    for (let index = 0; index < 10; index++) {
      const store = index % 2 === 0 ? durable : hurried;
      expect(await store.acquire(lease(`grant-${index}`))).toMatchObject({ granted: true });
    }
    for (let index = 0; index < 4; index++) {
      expect(await durable.settle(`grant-${index * 2}`, scopes, { actualNanoUsd: 300, leased: true })).toBe(
        true,
      );
    }
    await postgres.kill();
    await Promise.all([durable.close(), hurried.close()]);
    await postgres.restart();

    const reader = new PostgresBudgetStore({ url: postgres.url, schema: 'crash_sync' });
    try {
      expect(await reader.counters(scopes)).toEqual([
        { spentNanoUsd: 1200, reservedNanoUsd: 6000, inFlight: 6, unsettledNanoUsd: 0, unsettledCalls: 0 },
      ]);
      // Each lease by id: the settled ones ended, the others held (granted again, not twice).
      for (let index = 0; index < 10; index++) {
        const answer = await reader.acquire(lease(`grant-${index}`));
        expect(answer, `grant-${index}`).toMatchObject(
          index % 2 === 0 && index < 8 ? { granted: false, reason: 'ended' } : { granted: true },
        );
      }
    } finally {
      await reader.close();
    }
  });
});
