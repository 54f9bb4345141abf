// A row lock held elsewhere must not exhaust the server (issue 40 §4): a client that gives up on a
// statement (query_timeout) abandons its connection while the backend keeps waiting for the lock, and
// the pool opens a new one. Every operation sets its transaction's lock_timeout to the store's
// statementTimeoutMs, so the server ends the wait first, on a caller's pool too (whose sessions the
// store does not own, so it sets no statement_timeout on them). Another session holds FOR UPDATE on the
// root scope's row while 16 calls run through a budget: the store's user never has more backends than
// the pool has connections, every call ends after the timeout as a timeout (a server that answers is busy,
// not unreachable: never store_unreachable), and once the lock is released a call is granted. A call whose
// deadline passes while it waits for the lock ends then, as a timeout, and its lease, granted once the lock
// is released, is released behind it.
import { ChatError } from '@switchboard/adapter';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBudget } from '../src/budget.js';
import { PostgresBudgetStore } from '../src/postgres-store.js';
import { attemptInfo, callRecord, DOLLAR_PER_OUTPUT_TOKEN } from './support/attempt-info.js';
import { startPostgres, type TestPostgres } from './support/start-postgres.js';

const CALLERS = 16;
const STATEMENT_TIMEOUT_MS = 1000;
const USER = 'budget_app';

describe('PostgresBudgetStore while another session holds the root scope’s row', () => {
  let postgres: TestPostgres;
  let admin: pg.Client;
  let appUrl: string;
  beforeAll(async () => {
    postgres = await startPostgres();
    admin = new pg.Client({ connectionString: postgres.url });
    await admin.connect();
    // The store's own user, apart from the superuser that holds the lock and counts backends.
    await admin.query(`CREATE ROLE ${USER} LOGIN PASSWORD 'budget-app-secret'`);
    await admin.query(`GRANT CREATE ON DATABASE postgres TO ${USER}`);
    appUrl = postgres.url.replace(`switchboard:${postgres.password}@`, `${USER}:budget-app-secret@`);
  });
  afterAll(async () => {
    await admin?.end();
    await postgres?.stop();
  });

  const count = async (sql: string, values: unknown[] = []) =>
    Number((await admin.query(`SELECT count(*)::integer AS n FROM ${sql}`, values)).rows[0]?.n);
  const backends = () =>
    count("pg_catalog.pg_stat_activity WHERE usename = $1 AND backend_type = 'client backend'", [USER]);
  const lockWaiters = () =>
    count("pg_catalog.pg_stat_activity WHERE usename = $1 AND wait_event_type = 'Lock'", [USER]);

  /**
   * A budget over `store` whose root's row exists (one call made and settled at $0.50), and another
   * session holding that row FOR UPDATE until its COMMIT.
   */
  const heldRoot = async (store: PostgresBudgetStore, schema: string) => {
    const budget = createBudget({
      store,
      scope: { name: 'held', limitUsd: 100 },
      maxPricesOf: () => DOLLAR_PER_OUTPUT_TOKEN,
      onWarning: () => {},
    });
    const locker = new pg.Client({ connectionString: postgres.url });
    await locker.connect();
    try {
      const first = await budget.beforeAttempt(attemptInfo({ maxTokens: 1 }));
      await first.end({ record: callRecord(0.5), error: null, mayHaveBeenBilled: true });
      await locker.query('BEGIN');
      await locker.query(`SELECT * FROM "${schema}".budget_scopes WHERE scope_key = '{held}' FOR UPDATE`);
    } catch (error) {
      await locker.end().catch(() => {});
      await budget.close({ timeoutMs: 10_000 });
      throw error;
    }
    return { budget, locker };
  };

  it.each([
    ['a caller’s pg.Pool of 4 connections, no timeouts of its own', 4],
    ['a pool the store makes from a url (10 connections)', 10],
  ])('%s: at most the pool’s size of backends, every call ended', async (_, poolSize) => {
    const schema = poolSize === 4 ? 'held_pool' : 'held_url';
    const pool = poolSize === 4 ? new pg.Pool({ connectionString: appUrl, max: 4 }) : null;
    const store = new PostgresBudgetStore({
      ...(pool === null ? { url: appUrl } : { pool }),
      schema,
      statementTimeoutMs: STATEMENT_TIMEOUT_MS,
    });
    // The root's row exists (and the store holds connections already).
    const { budget, locker } = await heldRoot(store, schema);
    try {
      let ended = 0;
      const calls = Array.from({ length: CALLERS }, () =>
        Promise.resolve(budget.beforeAttempt(attemptInfo({ maxTokens: 1 })))
          .then(
            (handle) => ({ granted: true as const, handle }),
            (error: unknown) => ({ granted: false as const, error: error as Error & { reason?: string } }),
          )
          .finally(() => {
            ended += 1;
          }),
      );
      // The lock is held until every call has ended (an event, whatever it takes): meanwhile the
      // store's backends are counted, abandoned ones included (they wait for the lock too).
      let most = 0;
      while (ended < CALLERS) {
        most = Math.max(most, await backends());
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      most = Math.max(most, await backends());
      const outcomes = await Promise.all(calls);
      await locker.query('COMMIT');
      expect(most).toBeGreaterThan(0);
      expect(most).toBeLessThanOrEqual(poolSize);
      for (const outcome of outcomes) {
        expect(outcome.granted).toBe(false);
        if (outcome.granted) continue;
        expect(ChatError.isInstance(outcome.error)).toBe(true);
        expect(outcome.error).toMatchObject({ kind: 'timeout' });
        expect(outcome.error.message).toMatch(
          /waited for its store, which answers but did not reserve in time/,
        );
        expect(outcome.error.message).toMatch(/55P03|57014/);
      }
      // Nothing was changed by the refused calls; with the lock released, calls are granted again.
      const after = await budget.beforeAttempt(attemptInfo({ maxTokens: 2 }));
      expect((await budget.usage())[0]).toMatchObject({ spentUsd: 0.5, reservedUsd: 2, inFlight: 1 });
      await after.end({ record: callRecord(1), error: null, mayHaveBeenBilled: true });
      expect((await budget.usage())[0]).toMatchObject({ spentUsd: 1.5, reservedUsd: 0, inFlight: 0 });
    } finally {
      await locker.end().catch(() => {});
      await budget.close({ timeoutMs: 10_000 });
      await store.close();
      await pool?.end();
    }
  });

  it('a call whose deadline passes while it waits for the lock ends then, as a timeout; its lease is released behind it', async () => {
    const schema = 'held_deadline';
    // The server would wait a minute for the lock: the call's deadline, not this, ends its wait.
    const store = new PostgresBudgetStore({ url: appUrl, schema, statementTimeoutMs: 60_000 });
    const { budget, locker } = await heldRoot(store, schema);
    try {
      const deadline = new AbortController();
      const call = Promise.resolve(
        budget.beforeAttempt(attemptInfo({ maxTokens: 2, signal: deadline.signal })),
      );
      const outcome = call.then(
        () => null,
        (error: unknown) => error as Error,
      );
      // The deadline passes once the store's backend waits for the lock (an event, however long it takes).
      while ((await lockWaiters()) === 0) await new Promise((resolve) => setTimeout(resolve, 20));
      deadline.abort(new ChatError({ kind: 'timeout', message: 'the call passed its deadline of 1 s' }));
      const error = await outcome;
      // Ended with the lock still held (it is released only now), as the adapter's deadline ends a call.
      expect(await lockWaiters()).toBe(1);
      expect(ChatError.isInstance(error)).toBe(true);
      expect(error).toMatchObject({ kind: 'timeout' });
      expect(error?.message).toMatch(/passed its deadline before it was sent/);
      await locker.query('COMMIT');
      // The acquisition, granted once the lock is gone, is released behind it (its record ends, as the
      // first call's did): nothing stays reserved.
      const ended = () => count(`"${schema}".budget_lease_records WHERE state = 'ended'`);
      while ((await ended()) < 2) await new Promise((resolve) => setTimeout(resolve, 20));
      expect((await budget.usage())[0]).toMatchObject({ spentUsd: 0.5, reservedUsd: 0, inFlight: 0 });
    } finally {
      await locker.end().catch(() => {});
      await budget.close({ timeoutMs: 10_000 });
      await store.close();
    }
  });

  it('takes statementTimeoutMs from 1 to 2^31 − 1 − 5,000 ms (the client’s query_timeout is 5 s more)', () => {
    const make = (statementTimeoutMs: number) => () =>
      new PostgresBudgetStore({ url: 'postgres://u@127.0.0.1/db', statementTimeoutMs });
    expect(make(0)).toThrow(
      new RangeError(
        'PostgresBudgetStore options.statementTimeoutMs must be a number of milliseconds >= 1, got 0',
      ),
    );
    expect(make(1e10)).toThrow(
      /^PostgresBudgetStore options\.statementTimeoutMs must be at most 2147483647 ms/,
    );
    expect(make(2 ** 31 - 1)).toThrow(
      /statementTimeoutMs \+ 5,000 \(the client’s query_timeout\) must be at most/,
    );
    expect(make(2 ** 31 - 1 - 5000)).not.toThrow();
  });
});
