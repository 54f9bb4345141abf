// listBudgetScopes (`switchboard budget show`) on a real PostgreSQL whose clock the test moves
// (clock-shim.c): a daily scope spent on earlier days and today, a root, a role, a call unsettled and
// one in flight; read by a role that may only SELECT, changing no row; a schema that is not a
// budget's, a wrong password and an unreachable server in words, no password; 100,000 scopes
// listed through a cursor in bounded memory.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Budget } from '../src/budget.js';
import { createBudget } from '../src/budget.js';
import { PostgresBudgetStore } from '../src/postgres-store.js';
import { listBudgetScopes } from '../src/show/scope-listing.js';
import { StoreError } from '../src/store-error.js';
import { attemptInfo, callRecord, DOLLAR_PER_OUTPUT_TOKEN } from './support/attempt-info.js';
import { type MovableClock, movableClock } from './support/fake-clock.js';
import {
  expectExpiredLeaseCounted,
  expectScopeFilter,
  listAll,
  listed,
  SHOWN,
  spendForShow,
} from './support/show-scenario.js';
import { startPostgres, type TestPostgres } from './support/start-postgres.js';
import { freePort } from './support/start-redis.js';

describe('budget show on PostgreSQL (its clock moved by clock-shim.c)', () => {
  let clock: MovableClock;
  let postgres: TestPostgres;
  let store: PostgresBudgetStore;
  let admin: pg.Client;
  let budgets: Budget[] = [];
  let readerUrl = '';

  /** Every row of the budget's tables, in order: what must not change. */
  const rows = async () => {
    const all: unknown[] = [];
    const tables = await admin.query(
      "SELECT table_name FROM information_schema.tables WHERE table_schema = 'show' ORDER BY 1",
    );
    for (const { table_name: table } of tables.rows)
      all.push((await admin.query(`SELECT * FROM show.${table} ORDER BY 1, 2`)).rows);
    return JSON.stringify(all);
  };

  beforeAll(async () => {
    clock = movableClock();
    postgres = await startPostgres({ env: clock.env });
    store = new PostgresBudgetStore({ url: postgres.url, schema: 'show' });
    const daily = createBudget({
      store,
      scope: { name: 'daily', limitUsd: 50, window: 'day' },
      maxPricesOf: () => DOLLAR_PER_OUTPUT_TOKEN,
      waitForSettlements: false,
      onWarning: () => {},
    });
    // Three days ago $0.50, nothing the day after, yesterday $2; then today's spending.
    for (const [at, cost] of [
      ['2026-11-25T12:00:00Z', 0.5],
      ['2026-11-27T12:00:00Z', 2],
    ] as const) {
      clock.moveTo(at);
      await (await daily.beforeAttempt(attemptInfo({ maxTokens: 3 }))).end({
        record: callRecord(cost),
        error: null,
        mayHaveBeenBilled: true,
      });
    }
    clock.moveTo('2026-11-28T12:00:00Z');
    budgets = [daily, ...(await spendForShow(store)).budgets];
    admin = new pg.Client({ connectionString: postgres.url });
    await admin.connect();
    await admin.query("CREATE ROLE reader LOGIN PASSWORD 'reader-pass-1'");
    await admin.query('GRANT USAGE ON SCHEMA show TO reader');
    await admin.query('GRANT SELECT ON ALL TABLES IN SCHEMA show TO reader');
    readerUrl = postgres.url.replace(/\/\/[^@]*@/, '//reader:reader-pass-1@');
  });
  afterAll(async () => {
    for (const budget of budgets) await budget.close?.();
    await store?.close();
    await admin?.end();
    await postgres?.stop();
  });

  it('lists every scope with its window and past windows, to a role that may only SELECT, changing no row', async () => {
    const before = await rows();
    const found = await listed({ url: readerUrl, schema: 'show' });
    expect(found.map((listing) => listing.scope)).toEqual(['daily', 'svc', 'svc/judge']);
    expect(found[1]).toEqual(SHOWN.svc);
    expect(found[2]).toEqual(SHOWN.judge);
    expect(found[0]).toEqual({
      ...SHOWN.daily,
      window: { start: '2026-11-28T00:00:00.000Z', end: '2026-11-29T00:00:00.000Z' },
      past: [
        { start: '2026-11-25T00:00:00.000Z', end: '2026-11-26T00:00:00.000Z', spentUsd: 0.5 },
        { start: '2026-11-27T00:00:00.000Z', end: '2026-11-28T00:00:00.000Z', spentUsd: 2 },
      ],
    });
    expect(await rows()).toBe(before);
    // The role could not have written: it has no right to.
    const pool = new pg.Client({ connectionString: readerUrl });
    await pool.connect();
    await expect(pool.query("DELETE FROM show.budget_scopes WHERE scope_key = '{svc}'")).rejects.toThrow(
      /permission denied/,
    );
    await pool.end();
  });

  it('a lease past its expiry shows as the store will count it: unsettled spend, nothing reserved', () =>
    expectExpiredLeaseCounted(store, () => listed({ url: postgres.url, schema: 'show', scope: 'expiring' })));

  it('--scope reads only that scope, by the tables’ keys', () =>
    expectScopeFilter((scope) => listed({ url: postgres.url, schema: 'show', scope })));

  it('after midnight, today is a past window and no window is current', async () => {
    clock.moveTo('2026-11-29T00:00:05Z');
    const [daily] = await listed({ url: postgres.url, schema: 'show', scope: 'daily' });
    expect(daily).toMatchObject({ spentUsd: 0, window: null });
    expect(daily?.past.at(-1)).toEqual({
      start: '2026-11-28T00:00:00.000Z',
      end: '2026-11-29T00:00:00.000Z',
      spentUsd: 1.5,
    });
    clock.moveTo('2026-11-28T12:00:00Z');
  });

  it('refuses a schema that is not a budget schema, naming what was expected', async () => {
    await expect(listed({ url: postgres.url, schema: 'public' })).rejects.toThrow(
      /schema "public" is not a budget schema: it has no table budget_scopes, budget_leases \(expected the tables PostgresBudgetStore.migrate\(\) makes/,
    );
    await expect(listed({ url: postgres.url, schema: 'nope' })).rejects.toThrow(/there is no schema "nope"/);
    // The default schema (switchboard) was never made here.
    await expect(listed({ url: postgres.url })).rejects.toThrow(/there is no schema "switchboard"/);
  });

  it('a wrong password and an unreachable server in words, never the password', async () => {
    const wrong = postgres.url.replace(postgres.password, 'not-the-password-9');
    const error = await listed({ url: wrong, schema: 'show' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StoreError);
    expect((error as Error).message).toMatch(/authentication failed \(28P01\)/);
    expect(String(error) + (error as Error).stack).not.toContain('not-the-password-9');
    const port = await freePort();
    await expect(listed({ url: `postgres://u:secret-9@127.0.0.1:${port}/db` })).rejects.toThrow(
      `PostgreSQL at 127.0.0.1:${port}/db: connection refused (ECONNREFUSED): is PostgreSQL running there?`,
    );
  });

  it('lists 100,000 scopes in bounded memory', async () => {
    const many = new PostgresBudgetStore({ url: postgres.url, schema: 'many' });
    await many.migrate();
    await many.close();
    await admin.query(
      "INSERT INTO many.budget_scopes (scope_key, spent_nano_usd) SELECT '{tenant-' || i || '}', i FROM generate_series(0, 99999) AS i",
    );
    const {
      count,
      spentNanoUsd,
      peakBytes: peak,
    } = await listAll(listBudgetScopes({ url: postgres.url, schema: 'many' }));
    expect(count).toBe(100_000);
    expect(spentNanoUsd).toBe((100_000 * 99_999) / 2);
    // A page of 500 rows at a time, not 100,000 listings (about 30 MB).
    expect(peak).toBeLessThan(8_000_000);
  });
});
