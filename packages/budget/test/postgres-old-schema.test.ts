// PostgresBudgetStore on a schema made by an earlier version (its four tables, no functions, rows in
// them): the functions are created on first use, without migrate(), and the rows already there keep
// counting. Databases of functions versions 5 and 6, spent through, upgraded to this version on first use. And
// migrate() run by several processes at once on an empty database: each succeeds.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FUNCTIONS_VERSION, schemaSql, statementsOf } from '../src/postgres-sql.js';
import { PostgresBudgetStore } from '../src/postgres-store.js';
import type { StoredScope } from '../src/scope-limits.js';
import { listBudgetScopes } from '../src/show/scope-listing.js';
import { startPostgres, type TestPostgres } from './support/start-postgres.js';
import { until } from './support/until.js';

const packageRoot = fileURLToPath(new URL('..', import.meta.url));
const storePath = fileURLToPath(new URL('../src/postgres-store.ts', import.meta.url));
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** What the earlier version's migrate() ran: the store's own SQL up to its first function. */
function tablesOnlySql(schema: string): string {
  const sql = schemaSql(schema);
  return sql.slice(0, sql.indexOf('CREATE OR REPLACE FUNCTION'));
}

/** The functions the store's SQL creates, by name. */
function functionNames(): string[] {
  return [...schemaSql('s').matchAll(/CREATE OR REPLACE FUNCTION "s"\.(\w+)\(/g)].map(
    (match) => match[1] as string,
  );
}

/** What version 5's migrate() ran for schema "v5" (test/support/postgres-v5.sql). */
const V5_SQL = readFileSync(new URL('./support/postgres-v5.sql', import.meta.url), 'utf8');
/** What version 6's migrate() ran for schema "v6" (test/support/postgres-v6.sql). */
const V6_SQL = readFileSync(new URL('./support/postgres-v6.sql', import.meta.url), 'utf8');
const V5_CHAIN: StoredScope[] = [
  { key: '{v5-run}', limitNanoUsd: 10_000, maxInFlight: 8 },
  { key: '{v5-run}/judge', limitNanoUsd: null, maxInFlight: null },
];

/** The chain used before and after the upgrade: a limited root, an unlimited child. */
const CHAIN: StoredScope[] = [
  { key: '{old-run}', limitNanoUsd: 1000, maxInFlight: 4 },
  { key: '{old-run}/judge', limitNanoUsd: null, maxInFlight: null },
];
const counters = (spent: number, reserved: number, inFlight: number, unsettled = 0, calls = 0) => ({
  spentNanoUsd: spent,
  reservedNanoUsd: reserved,
  inFlight,
  unsettledNanoUsd: unsettled,
  unsettledCalls: calls,
});

describe('PostgresBudgetStore on an earlier version’s schema, and migrate() run concurrently', () => {
  let postgres: TestPostgres;
  let admin: pg.Pool;
  beforeAll(async () => {
    postgres = await startPostgres();
    admin = new pg.Pool({ connectionString: postgres.url, max: 2 });
  });
  afterAll(async () => {
    await admin?.end();
    await postgres?.stop();
  });

  /** The schema's functions and how many carry this version's comment. */
  async function functionsOf(pool: pg.Pool, schema: string) {
    const { rows } = await pool.query(
      `SELECT proc.proname AS name, obj_description(proc.oid, 'pg_proc') AS comment
       FROM pg_catalog.pg_proc AS proc JOIN pg_catalog.pg_namespace AS ns ON ns.oid = proc.pronamespace
       WHERE ns.nspname = $1 ORDER BY proc.proname`,
      [schema],
    );
    return {
      names: rows.map((row) => row.name as string),
      versioned: rows.filter((row) => row.comment === FUNCTIONS_VERSION).length,
    };
  }

  /** The schema's tables, columns, indexes and constraints, the schema's name left out. */
  async function shapeOf(schema: string) {
    const columns = await admin.query(
      `SELECT table_name, ordinal_position, column_name, data_type, is_nullable, column_default
       FROM information_schema.columns WHERE table_schema = $1 ORDER BY table_name, ordinal_position`,
      [schema],
    );
    const indexes = await admin.query(
      'SELECT indexname, replace(indexdef, $1, $2) AS def FROM pg_catalog.pg_indexes WHERE schemaname = $3 ORDER BY indexname',
      [`${schema}.`, 'S.', schema],
    );
    const constraints = await admin.query(
      `SELECT con.conname, pg_get_constraintdef(con.oid) AS def FROM pg_catalog.pg_constraint AS con
       JOIN pg_catalog.pg_namespace AS ns ON ns.oid = con.connamespace WHERE ns.nspname = $1 ORDER BY con.conname`,
      [schema],
    );
    return { columns: columns.rows, indexes: indexes.rows, constraints: constraints.rows };
  }

  it('tables and rows of the earlier version: functions created on first use (no migrate()), old spend, leases and records kept and counted', async () => {
    // The earlier version's state with real rows: this version's tables, spent through, then its functions dropped.
    const before = new PostgresBudgetStore({ url: postgres.url, schema: 'upgraded' });
    await before.migrate();
    const lease = (leaseId: string, amountNanoUsd: number, ttlMs = 60_000) =>
      ({ leaseId, scopes: CHAIN, amountNanoUsd, ttlMs }) as const;
    expect(await before.acquire(lease('settled-before', 300))).toMatchObject({ granted: true });
    expect(await before.settle('settled-before', CHAIN, { actualNanoUsd: 250, leased: true })).toBe(true);
    expect(await before.acquire(lease('held-before', 200))).toMatchObject({ granted: true });
    // Expires before the upgrade, never swept by the earlier version: counted at its worst case afterwards.
    expect(await before.acquire(lease('expired-before', 100, 1))).toMatchObject({ granted: true });
    await before.close();
    await sleep(20);
    const names = functionNames();
    expect(names.sort()).toEqual([
      'budget_acquire',
      'budget_acquire_many',
      'budget_acquire_windowed',
      'budget_counters',
      'budget_mark_thresholds',
      'budget_renew',
      'budget_settle',
      'budget_settle_many',
      'budget_settle_marked',
      'budget_sweep',
      'budget_totals',
    ]);
    for (const name of names) await admin.query(`DROP FUNCTION "upgraded".${name}`);
    expect((await functionsOf(admin, 'upgraded')).names).toEqual([]);
    // Nor the tables version 5 added (calendar windows, thresholds), nor version 6's shard rows, whose
    // settlements an earlier version made on the scope rows themselves: the upgrade makes them.
    await admin.query(`UPDATE "upgraded".budget_scopes AS scope SET spent_nano_usd = scope.spent_nano_usd + x.spent,
      reserved_nano_usd = scope.reserved_nano_usd + x.reserved, in_flight = scope.in_flight + x.in_flight,
      unsettled_nano_usd = scope.unsettled_nano_usd + x.unsettled, unsettled_calls = scope.unsettled_calls + x.calls
      FROM (SELECT scope_key, sum(spent_nano_usd) AS spent, sum(reserved_nano_usd) AS reserved, sum(in_flight) AS in_flight,
        sum(unsettled_nano_usd) AS unsettled, sum(unsettled_calls) AS calls FROM "upgraded".budget_scope_shards GROUP BY scope_key) AS x
      WHERE scope.scope_key = x.scope_key`);
    await admin.query(
      'DROP TABLE "upgraded".budget_windows, "upgraded".budget_thresholds, "upgraded".budget_scope_shards',
    );

    // That is the schema the earlier version's migrate() made: the same tables, columns, indexes and constraints.
    const oldSql = tablesOnlySql('tables_only');
    expect(oldSql.match(/CREATE TABLE IF NOT EXISTS/g)).toHaveLength(4);
    expect(oldSql).not.toMatch(/FUNCTION/);
    await admin.query(oldSql);
    expect(await shapeOf('upgraded')).toEqual(await shapeOf('tables_only'));
    const { rows: held } = await admin.query(
      'SELECT scope_key, spent_nano_usd::integer AS spent, reserved_nano_usd::integer AS reserved, in_flight FROM "upgraded".budget_scopes ORDER BY scope_key',
    );
    expect(held).toEqual([
      { scope_key: '{old-run}', spent: 250, reserved: 300, in_flight: 2 },
      { scope_key: '{old-run}/judge', spent: 250, reserved: 300, in_flight: 2 },
    ]);

    // A store of this version, first call without migrate(): 250 settled + 100 expired, so 700 more is past 1000.
    const pool = new pg.Pool({ connectionString: postgres.url, max: 3 });
    try {
      const after = new PostgresBudgetStore({ pool, schema: 'upgraded' });
      expect(await after.acquire(lease('after-big', 700))).toEqual({
        granted: false,
        reason: 'spend',
        scopeIndex: 0,
        counters: counters(350, 200, 1, 100, 1),
      });
      expect(await functionsOf(admin, 'upgraded')).toEqual({ names: names.sort(), versioned: 1 });
      const { rows: windows } = await admin.query(
        "SELECT count(*)::integer AS n FROM pg_catalog.pg_tables WHERE schemaname = 'upgraded' AND tablename IN ('budget_windows', 'budget_thresholds', 'budget_scope_shards')",
      );
      expect(windows).toEqual([{ n: 3 }]);
      // 350 + 200 held + 400 fits; then the held reservations leave no room for 100.
      expect(await after.acquire(lease('after-fit', 400))).toMatchObject({ granted: true });
      expect(await after.acquire(lease('after-over', 100))).toMatchObject({
        granted: false,
        reason: 'reserved',
        scopeIndex: 0,
        counters: counters(350, 600, 2, 100, 1),
      });
      // The earlier version's leases by id: the held one still held, the settled one ended.
      expect(await after.acquire(lease('held-before', 200))).toMatchObject({ granted: true });
      expect(await after.acquire(lease('settled-before', 300))).toMatchObject({
        granted: false,
        reason: 'ended',
      });
      // Settlements: of the earlier version's held lease, of its expired one (its worst case replaced), of a new one,
      // and the earlier settlement sent again (answered as before, counted once).
      expect(await after.settle('held-before', CHAIN, { actualNanoUsd: 150, leased: true })).toBe(true);
      expect(await after.settle('expired-before', CHAIN, { actualNanoUsd: 80, leased: true })).toBe(false);
      expect(await after.settle('after-fit', CHAIN, { actualNanoUsd: 380, leased: true })).toBe(true);
      expect(await after.settle('settled-before', CHAIN, { actualNanoUsd: 250, leased: true })).toBe(true);
      expect(await after.counters(CHAIN)).toEqual([counters(860, 0, 0), counters(860, 0, 0)]);
      const { rows: records } = await admin.query(
        `SELECT lease_id, state FROM "upgraded".budget_lease_records ORDER BY lease_id`,
      );
      expect(records).toEqual([
        { lease_id: 'after-fit', state: 'ended' },
        { lease_id: 'expired-before', state: 'ended' },
        { lease_id: 'held-before', state: 'ended' },
        { lease_id: 'settled-before', state: 'ended' },
      ]);

      // The tables alone, as the earlier version's SQL made them: first use creates the functions too.
      const fresh = new PostgresBudgetStore({ pool, schema: 'tables_only' });
      expect(await fresh.acquire(lease('first', 600))).toMatchObject({ granted: true });
      expect(await fresh.settle('first', CHAIN, { actualNanoUsd: 500, leased: true })).toBe(true);
      expect(await fresh.acquire(lease('second', 600))).toMatchObject({ granted: false, reason: 'spend' });
      expect(await functionsOf(admin, 'tables_only')).toEqual({ names: names.sort(), versioned: 1 });
    } finally {
      await pool.end();
    }
  });

  /**
   * Through an earlier version's own functions (same arguments as this version's, called as its store called
   * them), on schema `schema`: a lease settled at 700 of 1000, one settled unsettled at 500, one held (2000), one
   * granted for 1 ms (300), waited for until it expired on the server.
   */
  async function spendThroughOldFunctions(
    schema: string,
    chain: StoredScope[],
    checkBeforeExpiry?: () => Promise<void>,
  ) {
    const sql = statementsOf(schema);
    const keys = chain.map((scope) => scope.key);
    const acquire = async (lease: string, amount: number, ttlMs = 120_000) =>
      (
        await admin.query(sql.acquire, [
          keys,
          chain.map((scope) => scope.limitNanoUsd),
          chain.map((scope) => scope.maxInFlight),
          amount,
          lease,
          ttlMs,
          3_600_000,
          30_000,
        ])
      ).rows[0]?.granted;
    const settle = async (lease: string, actual: number, unsettled = false) =>
      (await admin.query(sql.settle, [lease, keys, actual, unsettled, true, 3_600_000, true, 30_000])).rows[0]
        ?.held;
    expect(await acquire('settled', 1000)).toBe(true);
    expect(await settle('settled', 700)).toBe(true);
    expect(await acquire('unsettled', 500)).toBe(true);
    expect(await settle('unsettled', 500, true)).toBe(true);
    expect(await acquire('held', 2000)).toBe(true);
    expect(await acquire('expired', 300, 1)).toBe(true);
    await checkBeforeExpiry?.();
    await until(
      async () =>
        (
          await admin.query(
            `SELECT count(*)::int AS n FROM ${schema}.budget_leases WHERE lease_id = 'expired' AND expires_at <= now()`,
          )
        ).rows[0]?.n === 2,
      'the lease of 1 ms expired on the server',
    );
  }

  /**
   * After spendThroughOldFunctions, through this version's store: its first call upgrades the schema and sweeps
   * the expired lease (then `upgraded` checks the schema); new leases up to the limit, the earlier version's
   * leases answered by id and settled once, the books exact.
   */
  async function carriesOn(store: PostgresBudgetStore, chain: StoredScope[], upgraded: () => Promise<void>) {
    // The expired lease is swept at its worst case: 1200 + 300 spent, 2000 held.
    expect(await store.counters(chain)).toEqual([
      counters(1500, 2000, 1, 800, 2),
      counters(1500, 2000, 1, 800, 2),
    ]);
    await upgraded();
    // 1500 + 2000 + 6500 = 10,000: fits; 1 more does not.
    expect(
      await store.acquire({ leaseId: 'new', scopes: chain, amountNanoUsd: 6500, ttlMs: 60_000 }),
    ).toMatchObject({
      granted: true,
    });
    expect(
      await store.acquire({ leaseId: 'over', scopes: chain, amountNanoUsd: 1, ttlMs: 60_000 }),
    ).toMatchObject({
      granted: false,
      reason: 'reserved',
    });
    // The earlier version's leases, by id: held, and ended (answered as before, counted once).
    expect(
      await store.acquire({ leaseId: 'held', scopes: chain, amountNanoUsd: 2000, ttlMs: 60_000 }),
    ).toMatchObject({
      granted: true,
    });
    expect(await store.settle('settled', chain, { actualNanoUsd: 700, leased: true })).toBe(true);
    expect(await store.settle('held', chain, { actualNanoUsd: 1500, leased: true })).toBe(true);
    expect(await store.settle('held', chain, { actualNanoUsd: 1500, leased: true })).toBe(true);
    // The expired lease's worst case replaced by its cost.
    expect(await store.settle('expired', chain, { actualNanoUsd: 100, leased: true })).toBe(false);
    expect(await store.settle('new', chain, { actualNanoUsd: 6000, leased: true })).toBe(true);
    // 700 + 500 (unsettled, then its ended record answers) + 1500 + 100 + 6000.
    const books = counters(8800, 0, 0, 500, 1);
    expect(await store.counters(chain)).toEqual([books, books]);
  }

  it('a database of functions version 5 (settlements on the scope rows), spent through, upgrades on first use; spend, leases, unsettled entries and records carry on exactly', async () => {
    await admin.query(V5_SQL);
    const version = async () =>
      (
        await admin.query(
          "SELECT obj_description('v5.budget_settle(text, text[], bigint, boolean, boolean, bigint, boolean, bigint)'::regprocedure, 'pg_proc') AS v",
        )
      ).rows[0]?.v;
    expect(await version()).toBe('switchboard budget functions 5');
    await spendThroughOldFunctions('v5', V5_CHAIN, async () => {
      const { rows: before } = await admin.query(
        'SELECT scope_key, spent_nano_usd::int AS spent, reserved_nano_usd::int AS reserved, in_flight FROM v5.budget_scopes ORDER BY scope_key',
      );
      expect(before).toEqual([
        { scope_key: '{v5-run}', spent: 1200, reserved: 2300, in_flight: 2 },
        { scope_key: '{v5-run}/judge', spent: 1200, reserved: 2300, in_flight: 2 },
      ]);
    });

    const store = new PostgresBudgetStore({ url: postgres.url, schema: 'v5' });
    try {
      await carriesOn(store, V5_CHAIN, async () => {
        expect(await version()).toBe(FUNCTIONS_VERSION);
        const { rows: tables } = await admin.query(
          "SELECT count(*)::int AS n FROM pg_catalog.pg_tables WHERE schemaname = 'v5' AND tablename = 'budget_scope_shards'",
        );
        expect(tables).toEqual([{ n: 1 }]);
      });
      // The listing reads the same figures: the scope rows plus their shards.
      const listed = [];
      for await (const scope of listBudgetScopes({ url: postgres.url, schema: 'v5' })) listed.push(scope);
      expect(listed.map((scope) => [scope.scope, scope.spentUsd, scope.reservedUsd, scope.inFlight])).toEqual(
        [
          ['v5-run', 8800e-9, 0, 0],
          ['v5-run/judge', 8800e-9, 0, 0],
        ],
      );
    } finally {
      await store.close();
    }
  });

  it('a database of functions version 6 (the sweep checked in a function of its own, sequential scans allowed), spent through, upgrades on first use; spend, leases, unsettled entries and records carry on exactly', async () => {
    await admin.query(V6_SQL);
    const settleSignature =
      'v6.budget_settle(text, text[], bigint, boolean, boolean, bigint, boolean, bigint)';
    const version = async () =>
      (await admin.query(`SELECT obj_description('${settleSignature}'::regprocedure, 'pg_proc') AS v`))
        .rows[0]?.v;
    expect(await version()).toBe('switchboard budget functions 6');
    const chain: StoredScope[] = [
      { key: '{v6-run}', limitNanoUsd: 10_000, maxInFlight: 8 },
      { key: '{v6-run}/judge', limitNanoUsd: null, maxInFlight: null },
    ];
    await spendThroughOldFunctions('v6', chain);

    const store = new PostgresBudgetStore({ url: postgres.url, schema: 'v6' });
    try {
      await carriesOn(store, chain, async () => {
        expect(await version()).toBe(FUNCTIONS_VERSION);
        const { rows: settings } = await admin.query(
          `SELECT proconfig AS config FROM pg_catalog.pg_proc WHERE oid = '${settleSignature}'::regprocedure`,
        );
        expect(settings[0]?.config).toContain('enable_seqscan=off');
      });
    } finally {
      await store.close();
    }
  });

  /** One process: a store on its own pool (connected), migrate() once told to go; prints what came of it. */
  const CHILD = `
const [storePath, url] = process.argv.slice(1);
const { PostgresBudgetStore } = await import(storePath);
const { default: pg } = await import('pg');
const pool = new pg.Pool({ connectionString: url, max: 2 });
await pool.query('SELECT 1');
const store = new PostgresBudgetStore({ pool });
process.stdout.write('ready\\n');
await new Promise((resolve) => process.stdin.once('data', resolve));
let result;
try {
  await store.migrate();
  result = { ok: true };
} catch (error) {
  result = { ok: false, error: String(error?.message ?? error) };
}
await pool.end();
process.stdout.write(JSON.stringify(result) + '\\n', () => process.exit(0));
`;

  /** Starts `count` processes, each with a connected store; once all are ready, tells them all to migrate. */
  async function migrateInProcesses(url: string, count: number): Promise<unknown[]> {
    const children = Array.from({ length: count }, () => {
      const child = spawn(
        process.execPath,
        ['--import', 'tsx', '--input-type=module', '-e', CHILD, storePath, url],
        { cwd: packageRoot, stdio: ['pipe', 'pipe', 'pipe'] },
      );
      let stdout = '';
      let stderr = '';
      let onReady: () => void = () => {};
      const ready = new Promise<void>((resolve) => {
        onReady = resolve;
      });
      child.stdout.on('data', (chunk) => {
        stdout += String(chunk);
        if (stdout.startsWith('ready\n')) onReady();
      });
      child.stderr.on('data', (chunk) => {
        stderr += String(chunk);
      });
      const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
      const done = new Promise<unknown>((resolve) =>
        child.on('exit', (code, signal) => {
          clearTimeout(timer);
          onReady();
          const line = stdout.trim().split('\n').at(-1) ?? '';
          resolve(line.startsWith('{') ? JSON.parse(line) : { ok: false, code, signal, stdout, stderr });
        }),
      );
      return { child, ready, done };
    });
    await Promise.all(children.map(({ ready }) => ready));
    for (const { child } of children) child.stdin.write('go\n');
    return Promise.all(children.map(({ done }) => done));
  }

  it('migrate() by 6 processes at once on an empty database, 3 times: each succeeds, one set of functions, a store works afterwards', async () => {
    for (let round = 1; round <= 3; round++) {
      const database = `fresh_${round}`;
      await admin.query(`CREATE DATABASE ${database}`);
      const url = postgres.url.replace(/\/postgres$/, `/${database}`);
      expect(url.endsWith(`/${database}`)).toBe(true);
      const results = await migrateInProcesses(url, 6);
      expect(results).toEqual(Array.from({ length: 6 }, () => ({ ok: true })));

      const pool = new pg.Pool({ connectionString: url, max: 3 });
      try {
        expect(await functionsOf(pool, 'switchboard')).toEqual({
          names: functionNames().sort(),
          versioned: 1,
        });
        const { rows } = await pool.query(
          "SELECT count(*)::integer AS tables FROM pg_catalog.pg_tables WHERE schemaname = 'switchboard'",
        );
        // The four tables of the earlier versions, budget_windows and budget_thresholds (version 5),
        // budget_scope_shards (version 6).
        expect(rows).toEqual([{ tables: 7 }]);
        const third = new PostgresBudgetStore({ url });
        try {
          const request = { leaseId: 'after', scopes: CHAIN, amountNanoUsd: 900, ttlMs: 60_000 };
          expect(await third.acquire(request)).toMatchObject({ granted: true });
          expect(await third.settle('after', CHAIN, { actualNanoUsd: 700, leased: true })).toBe(true);
          expect(await third.acquire({ ...request, leaseId: 'over', amountNanoUsd: 400 })).toMatchObject({
            granted: false,
            reason: 'spend',
          });
          expect(await third.counters(CHAIN)).toEqual([counters(700, 0, 0), counters(700, 0, 0)]);
        } finally {
          await third.close();
        }
      } finally {
        await pool.end();
      }
    }
  });
});
