// Deadlocks on PostgreSQL never drop or double an amount (issue 42): two stores on two pools spend the same
// two scopes with their chains given in opposite orders, many times at once, and the books are exact; and a
// deadlock the server does detect (another session takes the scope rows in the other order) is retried as
// the same operation: the call is granted once, counted once. Renewals never wait on a lease's row: one held
// by a settlement (or a sweep) is left out, so renewals and batched settlements of the same leases, in any
// order, never deadlock (they did: a renewal took the rows in its own order, and each deadlock stalled both
// for the server's deadlock_timeout, 1 s).
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresBudgetStore } from '../src/postgres-store.js';
import type { StoredScope } from '../src/scope-limits.js';
import { deadlocks } from './support/deadlocks.js';
import { lockWaiters } from './support/lock-waiters.js';
import { startPostgres, type TestPostgres } from './support/start-postgres.js';
import { until } from './support/until.js';

const A: StoredScope = { key: '{dl-a}', limitNanoUsd: 1_000_000_000, maxInFlight: null };
const B: StoredScope = { key: '{dl-b}', limitNanoUsd: null, maxInFlight: null };
const PAIRS_PER_STORE = 200;
const CONCURRENT = 8;
const RENEWED_LEASES = 600;

/** A scope's counters once every lease settled, for `spent` in all. */
const settledOnly = (spent: number) => ({
  spentNanoUsd: spent,
  reservedNanoUsd: 0,
  inFlight: 0,
  unsettledNanoUsd: 0,
  unsettledCalls: 0,
});

describe('PostgresBudgetStore and deadlocks', () => {
  let postgres: TestPostgres;
  beforeAll(async () => {
    postgres = await startPostgres();
  });
  afterAll(() => postgres?.stop());

  it(`two pools, chains in opposite orders, ${CONCURRENT} at a time each: every pair counted exactly once`, async () => {
    const pools = [
      new pg.Pool({ connectionString: postgres.url, max: 6 }),
      new pg.Pool({ connectionString: postgres.url, max: 6 }),
    ];
    const stores = pools.map((pool) => new PostgresBudgetStore({ pool, schema: 'deadlock' }));
    const orders = [
      [A, B],
      [B, A],
    ];
    const failures: string[] = [];
    let settled = 0;
    let granted = 0;
    try {
      await Promise.all(
        stores.map(async (store, which) => {
          const chain = orders[which] as StoredScope[];
          let next = 0;
          const lane = async () => {
            while (next < PAIRS_PER_STORE) {
              next += 1;
              const leaseId = randomUUID();
              const amount = 1000 + Math.floor(Math.random() * 1000);
              const actual = Math.floor(amount / 2);
              try {
                const result = await store.acquire({
                  leaseId,
                  scopes: chain,
                  amountNanoUsd: amount,
                  ttlMs: 120_000,
                });
                if (!result.granted) {
                  failures.push(`refused: ${result.reason}`);
                  continue;
                }
                granted += 1;
                expect(await store.settle(leaseId, chain, { actualNanoUsd: actual, leased: true })).toBe(
                  true,
                );
                settled += actual;
              } catch (error) {
                failures.push(String(error));
              }
            }
          };
          await Promise.all(Array.from({ length: CONCURRENT }, lane));
        }),
      );
      expect(failures).toEqual([]);
      expect(granted).toBe(2 * PAIRS_PER_STORE);
      const expected = settledOnly(settled);
      expect(await stores[0]?.counters([A, B])).toEqual([expected, expected]);
      expect(await stores[1]?.counters([B, A])).toEqual([expected, expected]);
    } finally {
      await Promise.all(pools.map((pool) => pool.end()));
    }
  }, 120_000);

  it('renewals and batched settlements of the same leases at once, in any order: no deadlock, every settlement counted once', async () => {
    // Two stores, as two processes: one renews every lease still held, over and over, two renewals at a
    // time, each in its own order; the other settles them, 8 at a time (batched behind one another).
    const renewing = new PostgresBudgetStore({ url: postgres.url, schema: 'renewals' });
    const settling = new PostgresBudgetStore({ url: postgres.url, schema: 'renewals' });
    const admin = new pg.Client({ connectionString: postgres.url });
    await admin.connect();
    const chain = [A, B];
    let settled = 0;
    try {
      const before = await deadlocks(admin);
      const held = Array.from({ length: RENEWED_LEASES }, () => ({ leaseId: randomUUID(), scopes: chain }));
      const granted = await Promise.all(
        held.map(({ leaseId }) =>
          settling.acquire({ leaseId, scopes: chain, amountNanoUsd: 100, ttlMs: 120_000 }),
        ),
      );
      expect(granted.every((result) => result.granted)).toBe(true);
      const left = new Set(held);
      let renewals = 0;
      const renewer = async () => {
        while (left.size > 0) {
          await renewing.renew(
            [...left].sort(() => Math.random() - 0.5),
            120_000,
          );
          renewals += 1;
        }
      };
      const queue = [...held];
      const settler = async () => {
        for (let lease = queue.shift(); lease !== undefined; lease = queue.shift()) {
          const actual = 1 + Math.floor(Math.random() * 50);
          expect(await settling.settle(lease.leaseId, chain, { actualNanoUsd: actual, leased: true })).toBe(
            true,
          );
          settled += actual;
          left.delete(lease);
        }
      };
      await Promise.all([renewer(), renewer(), ...Array.from({ length: 8 }, settler)]);
      expect(renewals).toBeGreaterThan(0);
      expect((await deadlocks(admin)) - before).toBe(0);
      const expected = settledOnly(settled);
      expect(await settling.counters(chain)).toEqual([expected, expected]);
    } finally {
      await admin.end();
      await Promise.all([renewing.close(), settling.close()]);
    }
  }, 120_000);

  it('a deadlock the server detects (another session locks the rows in the other order) is retried: granted and counted once', async () => {
    const store = new PostgresBudgetStore({ url: postgres.url, schema: 'detected' });
    const other = new pg.Client({ connectionString: postgres.url });
    const admin = new pg.Client({ connectionString: postgres.url });
    await Promise.all([other.connect(), admin.connect()]);
    try {
      const chain = [A, B];
      // The rows exist.
      expect(
        await store.acquire({ leaseId: 'first', scopes: chain, amountNanoUsd: 10, ttlMs: 120_000 }),
      ).toMatchObject({ granted: true });
      expect(await store.settle('first', chain, { actualNanoUsd: 10, leased: true })).toBe(true);
      // The other session waits long before it looks for a deadlock: the store's backend finds it.
      await other.query("SET deadlock_timeout = '60s'");
      await other.query('BEGIN');
      await other.query("UPDATE detected.budget_scopes SET updated_at = now() WHERE scope_key = '{dl-b}'");
      const asked = store.acquire({ leaseId: 'second', scopes: chain, amountNanoUsd: 20, ttlMs: 120_000 });
      const waitingOn = async () => (await lockWaiters(admin, 'budget_acquire')).length;
      // The acquisition holds {dl-a} and waits for {dl-b}; the other session now asks for {dl-a}.
      await until(async () => (await waitingOn()) === 1, 'the acquisition waiting on {dl-b}');
      // It gets {dl-a} only once the server broke the deadlock by rolling the acquisition back (the other
      // session would wait 60 s before it looked); the store then runs the acquisition again.
      await other.query("UPDATE detected.budget_scopes SET updated_at = now() WHERE scope_key = '{dl-a}'");
      await other.query('COMMIT');
      expect(await asked).toMatchObject({ granted: true });
      expect(await store.settle('second', chain, { actualNanoUsd: 15, leased: true })).toBe(true);
      const expected = settledOnly(25);
      expect(await store.counters(chain)).toEqual([expected, expected]);
    } finally {
      await other.end().catch(() => {});
      await admin.end();
      await store.close();
    }
  }, 60_000);
});
