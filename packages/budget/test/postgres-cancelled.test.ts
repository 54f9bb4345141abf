// A statement cancelled long before the store's statement timeout could have passed (57014: a server whose
// clock was stepped forward fires its timers early, or an operator's pg_cancel_backend) ran nothing: the store
// runs it again, as the same operation, and the call is granted and counted once.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresBudgetStore } from '../src/postgres-store.js';
import type { StoredScope } from '../src/scope-limits.js';
import { lockWaiters } from './support/lock-waiters.js';
import { startPostgres, type TestPostgres } from './support/start-postgres.js';
import { until } from './support/until.js';

const ROOT: StoredScope = { key: '{cancelled}', limitNanoUsd: 1_000_000, maxInFlight: null };

describe('PostgresBudgetStore and a cancelled statement', () => {
  let postgres: TestPostgres;
  beforeAll(async () => {
    postgres = await startPostgres();
  });
  afterAll(() => postgres?.stop());

  it('an acquisition cancelled while it waits on a lock is run again: granted once, counted once', async () => {
    const store = new PostgresBudgetStore({ url: postgres.url, schema: 'cancelled' });
    const other = new pg.Client({ connectionString: postgres.url });
    const admin = new pg.Client({ connectionString: postgres.url });
    await Promise.all([other.connect(), admin.connect()]);
    try {
      expect(
        await store.acquire({ leaseId: 'first', scopes: [ROOT], amountNanoUsd: 10, ttlMs: 60_000 }),
      ).toMatchObject({
        granted: true,
      });
      expect(await store.settle('first', [ROOT], { actualNanoUsd: 10, leased: true })).toBe(true);
      // Another session holds the scope's row: the next acquisition waits for it.
      await other.query('BEGIN');
      await other.query(
        "UPDATE cancelled.budget_scopes SET updated_at = now() WHERE scope_key = '{cancelled}'",
      );
      const asked = store.acquire({ leaseId: 'second', scopes: [ROOT], amountNanoUsd: 20, ttlMs: 60_000 });
      const waiting = () => lockWaiters(admin, 'budget_acquire');
      await until(async () => (await waiting()).length === 1, 'the acquisition waiting on the row');
      const [first] = await waiting();
      expect((await admin.query('SELECT pg_cancel_backend($1) AS done', [first?.pid])).rows[0]?.done).toBe(
        true,
      );
      // Cancelled (57014), it is sent again (a statement that started later) and waits again; then the row comes free.
      await until(
        async () => (await waiting()).some((row) => row.startedAt > (first?.startedAt ?? 0)),
        'the acquisition sent again, waiting on the row',
      );
      await other.query('COMMIT');
      expect(await asked).toMatchObject({ granted: true });
      expect(await store.settle('second', [ROOT], { actualNanoUsd: 15, leased: true })).toBe(true);
      expect(await store.counters([ROOT])).toEqual([
        { spentNanoUsd: 25, reservedNanoUsd: 0, inFlight: 0, unsettledNanoUsd: 0, unsettledCalls: 0 },
      ]);
    } finally {
      await other.end().catch(() => {});
      await admin.end();
      await store.close();
    }
  }, 60_000);
});
