// Acquisitions (settlements) of one chain asked while one of it is on the server go together, in one
// statement (budget_acquire_many, budget_settle_many): each answered on its own, exactly as if sent one by
// one, and a batch that grants any of them commits to disk whatever a refusal in it set (issue 42: the hot
// row's floor).
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresBudgetStore } from '../src/postgres-store.js';
import type { StoredScope } from '../src/scope-limits.js';
import { lockWaiters } from './support/lock-waiters.js';
import { startPostgres, type TestPostgres } from './support/start-postgres.js';
import { until } from './support/until.js';

const CALLS = 30;

/** A caller's pool that counts the statements naming `name`. */
function countingPool(url: string, name: string) {
  const pool = new pg.Pool({ connectionString: url, max: 4 });
  let counted = 0;
  const connect = pool.connect.bind(pool);
  const wrapped = new WeakSet<object>();
  const counting = Object.assign(Object.create(pool) as pg.Pool, {
    async connect() {
      const client = await connect();
      if (wrapped.has(client)) return client;
      wrapped.add(client);
      const query = client.query.bind(client) as (...args: unknown[]) => unknown;
      return Object.assign(client, {
        query: (...args: unknown[]) => {
          const text = typeof args[0] === 'string' ? args[0] : (args[0] as { text?: string }).text;
          if (text?.includes(name) === true) counted += 1;
          return query(...args);
        },
      });
    },
  });
  return { pool: counting, end: () => pool.end(), counted: () => counted };
}

describe('PostgresBudgetStore: acquisitions and settlements of one chain sent together', () => {
  let postgres: TestPostgres;
  let admin: pg.Client;
  beforeAll(async () => {
    postgres = await startPostgres();
    admin = new pg.Client({ connectionString: postgres.url });
    await admin.connect();
  });
  /** Backends waiting for a lock in a statement that names `name`. */
  const waitingOn = async (name: string) => (await lockWaiters(admin, name)).length;
  afterAll(async () => {
    await admin?.end();
    await postgres?.stop();
  });

  it(`${CALLS} acquisitions asked while one waits on the root's row go in one statement; each answered on its own`, async () => {
    const counting = countingPool(postgres.url, 'budget_acquire_many');
    const store = new PostgresBudgetStore({ pool: counting.pool, schema: 'batched' });
    const locker = new pg.Client({ connectionString: postgres.url });
    await locker.connect();
    try {
      // Room for the first lease and 9 more (10 nano-dollars each) under the root's limit of 100.
      const scopes: StoredScope[] = [
        { key: '{batched}', limitNanoUsd: 100, maxInFlight: null },
        { key: '{batched}/judge', limitNanoUsd: null, maxInFlight: null },
      ];
      const lease = () => ({ leaseId: randomUUID(), scopes, amountNanoUsd: 10, ttlMs: 120_000 });
      expect(await store.acquire(lease())).toMatchObject({ granted: true });
      // migrate() named the function (its creation, the check that it is there): counted from here.
      const before = counting.counted();
      await locker.query('BEGIN');
      await locker.query('SELECT * FROM batched.budget_scopes WHERE scope_key = $1 FOR UPDATE', [
        '{batched}',
      ]);
      const first = store.acquire(lease());
      // The first waits on the server for the row; the others are asked while it does.
      await until(
        async () => (await waitingOn('budget_acquire')) === 1,
        'the first acquisition waits on the row',
      );
      const rest = Array.from({ length: CALLS - 1 }, () => store.acquire(lease()));
      await locker.query('COMMIT');
      const answers = await Promise.all([first, ...rest]);
      expect(counting.counted() - before).toBe(1);
      expect(answers.filter((answer) => answer.granted)).toHaveLength(9);
      const refused = answers.filter((answer) => !answer.granted);
      expect(refused).toHaveLength(CALLS - 9);
      for (const answer of refused) expect(answer).toMatchObject({ reason: 'reserved', scopeIndex: 0 });
      const [root, judge] = await store.counters(scopes);
      expect(root).toMatchObject({ reservedNanoUsd: 100, inFlight: 10 });
      expect(judge).toMatchObject({ reservedNanoUsd: 100, inFlight: 10 });
    } finally {
      await locker.end().catch(() => {});
      await store.close();
      await counting.end();
    }
  }, 60_000);

  it(`${CALLS} settlements asked while one waits on its lease's record go in one statement; each counted once`, async () => {
    const counting = countingPool(postgres.url, 'budget_settle_many');
    const store = new PostgresBudgetStore({ pool: counting.pool, schema: 'batched_settle' });
    const locker = new pg.Client({ connectionString: postgres.url });
    await locker.connect();
    try {
      const scopes: StoredScope[] = [
        { key: '{settled}', limitNanoUsd: 1_000_000, maxInFlight: null },
        { key: '{settled}/judge', limitNanoUsd: null, maxInFlight: null },
      ];
      const leases = Array.from({ length: CALLS }, () => randomUUID());
      for (const leaseId of leases) {
        expect(await store.acquire({ leaseId, scopes, amountNanoUsd: 100, ttlMs: 120_000 })).toMatchObject({
          granted: true,
        });
      }
      const before = counting.counted();
      // The first settlement waits for its lease's record, which another session holds.
      await locker.query('BEGIN');
      await locker.query('SELECT * FROM batched_settle.budget_lease_records WHERE lease_id = $1 FOR UPDATE', [
        leases[0],
      ]);
      const settle = (leaseId: string, index: number) =>
        store.settle(leaseId, scopes, { actualNanoUsd: index + 1, leased: true });
      const first = settle(leases[0] as string, 0);
      await until(
        async () => (await waitingOn('budget_settle')) === 1,
        'the first settlement waits on its record',
      );
      const rest = leases.slice(1).map((leaseId, index) => settle(leaseId, index + 1));
      await locker.query('COMMIT');
      expect(await Promise.all([first, ...rest])).toEqual(leases.map(() => true));
      expect(counting.counted() - before).toBe(1);
      // Each once: sent again (together), each answers as it did, and the books do not move.
      expect(await Promise.all(leases.map((leaseId, index) => settle(leaseId, index)))).toEqual(
        leases.map(() => true),
      );
      const spent = (CALLS * (CALLS + 1)) / 2;
      for (const scope of await store.counters(scopes)) {
        expect(scope).toMatchObject({ spentNanoUsd: spent, reservedNanoUsd: 0, inFlight: 0 });
      }
    } finally {
      await locker.end().catch(() => {});
      await store.close();
      await counting.end();
    }
  }, 60_000);

  it('a batch that grants and then refuses commits to disk: the session’s synchronous_commit comes back', async () => {
    const store = new PostgresBudgetStore({ url: postgres.url, schema: 'batched_durable' });
    await store.migrate();
    const client = new pg.Client({ connectionString: postgres.url });
    await client.connect();
    try {
      for (const [session, expected] of [
        ['off', 'on'],
        ['local', 'local'],
        ['on', 'on'],
      ] as const) {
        await client.query('BEGIN');
        await client.query(`SET LOCAL synchronous_commit = ${session}`);
        // Granted, then refused (over the limit of 15): the refusal, last, set the commit not to wait.
        const { rows } = await client.query(
          `SELECT granted, reason FROM batched_durable.budget_acquire_many($1::text[], $2::int8[], $3::int4[], $4::int8[], $5::text[], 60000, 3600000, 5000)`,
          [['{durable}'], [15], [null], [10, 10], [randomUUID(), randomUUID()]],
        );
        expect(rows).toEqual([
          { granted: true, reason: null },
          { granted: false, reason: 'reserved' },
        ]);
        const [setting] = (await client.query("SELECT current_setting('synchronous_commit') AS value")).rows;
        expect(setting).toEqual({ value: expected });
        await client.query('ROLLBACK');
      }
      // All refused: nothing of it lasts, and the commit need not wait.
      await client.query('BEGIN');
      await client.query('SET LOCAL synchronous_commit = on');
      await client.query(
        `SELECT * FROM batched_durable.budget_acquire_many($1::text[], $2::int8[], $3::int4[], $4::int8[], $5::text[], 60000, 3600000, 5000)`,
        [['{durable}'], [5], [null], [10, 10], [randomUUID(), randomUUID()]],
      );
      const [setting] = (await client.query("SELECT current_setting('synchronous_commit') AS value")).rows;
      expect(setting).toEqual({ value: 'off' });
      await client.query('ROLLBACK');
    } finally {
      await client.end();
      await store.close();
    }
  }, 60_000);
});
