// PostgresBudgetStore on a schema made by an earlier version (its four tables, no functions, rows in
// them): the functions are created on first use, without migrate(), and the rows already there keep
// counting. And migrate() run by several processes at once on an empty database: each succeeds.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FUNCTIONS_VERSION, schemaSql } from '../src/postgres-sql.js';
import { PostgresBudgetStore } from '../src/postgres-store.js';
import type { StoredScope } from '../src/scope-limits.js';
import { startPostgres, type TestPostgres } from './support/start-postgres.js';

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
      'budget_acquire_windowed',
      'budget_counters',
      'budget_mark_thresholds',
      'budget_renew',
      'budget_settle',
      'budget_sweep',
    ]);
    for (const name of names) await admin.query(`DROP FUNCTION "upgraded".${name}`);
    expect((await functionsOf(admin, 'upgraded')).names).toEqual([]);
    // Nor the tables version 5 added (calendar windows, thresholds): the upgrade makes them.
    await admin.query('DROP TABLE "upgraded".budget_windows, "upgraded".budget_thresholds');

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
        "SELECT count(*)::integer AS n FROM pg_catalog.pg_tables WHERE schemaname = 'upgraded' AND tablename IN ('budget_windows', 'budget_thresholds')",
      );
      expect(windows).toEqual([{ n: 2 }]);
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
        // The four tables of the earlier versions, budget_windows and budget_thresholds (version 5).
        expect(rows).toEqual([{ tables: 6 }]);
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
