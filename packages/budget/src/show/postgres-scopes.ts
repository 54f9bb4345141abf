import { guardPool, loadPg, type PgClient } from '../load-pg.js';
import { pgErrorOf } from '../postgres-error.js';
import { baseKeyOf } from '../scope-windows.js';
import { StoreError } from '../store-error.js';
import { type BudgetScopeListing, type LedgerFigures, listingOf, type StoredWindow } from './listing-of.js';

/** Rows fetched from the cursor per round trip. */
const FETCH = 500;
/** The tables a budget schema has (made by PostgresBudgetStore.migrate()); budget_windows since calendar windows. */
const NEEDED = ['budget_scopes', 'budget_leases'];

/**
 * The scopes of a PostgresBudgetStore in `schema`, read-only: one READ ONLY transaction, its rows
 * through a cursor (FETCH 500) in scope order, so memory holds one scope's windows at a time. Only
 * `scopeKey`'s rows with one (by the tables' keys). Needs USAGE on the schema and SELECT on its tables.
 */
export async function* postgresScopes(
  url: string,
  schemaOption: string | undefined,
  scopeKey: string | null,
): AsyncGenerator<BudgetScopeListing> {
  const schema = schemaOption ?? 'switchboard';
  if (typeof schema !== 'string' || !/^[A-Za-z_][A-Za-z0-9_]{0,62}$/.test(schema)) {
    throw new TypeError(
      'listBudgetScopes options.schema must be an identifier of letters, digits and _ (at most 63), not starting with a digit',
    );
  }
  const parsed = new URL(url);
  const where = `${parsed.host}${parsed.pathname === '/' ? '' : parsed.pathname}`;
  const password = decodeURIComponent(parsed.password);
  const secrets = password.length >= 3 ? [password, parsed.password] : [];
  const pool = new (loadPg().Pool)({
    connectionString: url,
    max: 1,
    connectionTimeoutMillis: 5000,
    statement_timeout: 30_000,
    query_timeout: 35_000,
    allowExitOnIdle: true,
  });
  guardPool(pool);
  let client: PgClient | null = null;
  try {
    client = await pool.connect();
    const query = client.query.bind(client) as PgClient['query'];
    await query('BEGIN TRANSACTION READ ONLY');
    await query('SET LOCAL search_path = pg_catalog, pg_temp');
    const tables = await checkSchema(query, schema, where);
    await query(listingSql(schema, tables, scopeKey !== null), scopeKey === null ? [] : [scopeKey]);
    let base: string | null = null;
    let ledger: LedgerFigures | null = null;
    let found: StoredWindow[] = [];
    let nowMs = 0;
    for (;;) {
      const { rows } = await query(`FETCH ${FETCH} FROM budget_show`);
      for (const row of rows) {
        const key = String(row.scope_key);
        const rowBase = row.base === null ? baseKeyOf(key) : String(row.base);
        if (base !== null && rowBase !== base) yield listingOf(base, ledger, found, nowMs);
        if (rowBase !== base) {
          base = rowBase;
          ledger = null;
          found = [];
        }
        nowMs = Number(row.now_ms);
        const figures = figuresOf(row);
        if (row.start_ms === null || row.end_ms === null) ledger = figures;
        else found.push({ ...figures, startMs: Number(row.start_ms), endMs: Number(row.end_ms) });
      }
      if (rows.length < FETCH) break;
    }
    if (base !== null) yield listingOf(base, ledger, found, nowMs);
    await query('COMMIT');
  } catch (error) {
    throw pgErrorOf(error, where, secrets, true);
  } finally {
    client?.release(true);
    await pool.end().catch(() => {});
  }
}

/** Refuses a schema that is not a budget's (naming what was expected); the tables it has. */
async function checkSchema(
  query: PgClient['query'],
  schema: string,
  where: string,
): Promise<ReadonlySet<string>> {
  const { rows } = await query(
    `SELECT c.relname, c.relkind FROM pg_catalog.pg_namespace AS n
     LEFT JOIN pg_catalog.pg_class AS c ON c.relnamespace = n.oid AND c.relname = ANY($2::pg_catalog.text[])
     WHERE n.nspname = $1`,
    [schema, [...NEEDED, 'budget_windows', 'budget_scope_shards']],
  );
  if (rows.length === 0) {
    throw new StoreError(
      `PostgreSQL at ${where}: there is no schema "${schema}" (expected the schema of a PostgresBudgetStore, default switchboard; pass --schema)`,
      true,
    );
  }
  const tables = new Set(rows.filter((row) => row.relkind === 'r').map((row) => String(row.relname)));
  const missing = NEEDED.filter((table) => !tables.has(table));
  if (missing.length > 0) {
    throw new StoreError(
      `PostgreSQL at ${where}: schema "${schema}" is not a budget schema: it has no table ${missing.join(', ')} (expected the tables PostgresBudgetStore.migrate() makes: budget_scopes, budget_leases, budget_windows…)`,
      true,
    );
  }
  return tables;
}

/**
 * Every scope row with its window (when it is one) and the expired leases the next sweep will count
 * as unsettled spend, ordered by scope then window start, as the cursor `budget_show`.
 */
function listingSql(schema: string, tables: ReadonlySet<string>, filtered: boolean): string {
  const windows = tables.has('budget_windows');
  const shards = tables.has('budget_scope_shards');
  const s = `"${schema}"`;
  const ms = (column: string) => `(pg_catalog.date_part('epoch', ${column}) * 1000)::pg_catalog.int8`;
  const windowJoin = windows
    ? `LEFT JOIN ${s}.budget_windows AS w ON w.window_key = scope.scope_key`
    : 'LEFT JOIN (SELECT NULL::pg_catalog.text AS scope_key, NULL::pg_catalog.timestamptz AS start_at, NULL::pg_catalog.timestamptz AS end_at) AS w ON false';
  // Since version 6 settlements add to a scope's shard rows.
  const shardsJoin = shards
    ? `LEFT JOIN LATERAL (
  SELECT pg_catalog.sum(x.spent_nano_usd) AS spent, pg_catalog.sum(x.reserved_nano_usd) AS reserved,
    pg_catalog.sum(x.in_flight) AS in_flight, pg_catalog.sum(x.unsettled_nano_usd) AS unsettled
  FROM ${s}.budget_scope_shards AS x WHERE x.scope_key = scope.scope_key
) AS sh ON true`
    : 'LEFT JOIN (SELECT NULL::pg_catalog.int8 AS spent, NULL::pg_catalog.int8 AS reserved, NULL::pg_catalog.int8 AS in_flight, NULL::pg_catalog.int8 AS unsettled) AS sh ON true';
  const filter = !filtered
    ? ''
    : windows
      ? `WHERE scope.scope_key = $1 OR scope.scope_key IN (SELECT window_key FROM ${s}.budget_windows WHERE scope_key = $1)`
      : 'WHERE scope.scope_key = $1';
  return `DECLARE budget_show NO SCROLL CURSOR FOR
SELECT scope.scope_key, w.scope_key AS base, ${ms('w.start_at')} AS start_ms, ${ms('w.end_at')} AS end_ms,
  scope.spent_nano_usd + coalesce(sh.spent, 0) + coalesce(gone.total, 0) AS spent,
  scope.reserved_nano_usd + coalesce(sh.reserved, 0) - coalesce(gone.total, 0) AS reserved,
  scope.in_flight + coalesce(sh.in_flight, 0) - coalesce(gone.calls, 0) AS in_flight,
  scope.unsettled_nano_usd + coalesce(sh.unsettled, 0) + coalesce(gone.total, 0) AS unsettled,
  ${ms('pg_catalog.now()')} AS now_ms
FROM ${s}.budget_scopes AS scope
${windowJoin}
${shardsJoin}
LEFT JOIN LATERAL (
  SELECT pg_catalog.sum(l.amount_nano_usd) AS total, pg_catalog.count(*) AS calls FROM ${s}.budget_leases AS l
  WHERE l.scope_key = scope.scope_key AND l.expires_at <= pg_catalog.now()
) AS gone ON true
${filter}
ORDER BY coalesce(w.scope_key, scope.scope_key), w.start_at NULLS FIRST`;
}

function figuresOf(row: Record<string, unknown>): LedgerFigures {
  return {
    spent: Number(row.spent),
    reserved: Math.max(0, Number(row.reserved)),
    inFlight: Math.max(0, Number(row.in_flight)),
    unsettled: Number(row.unsettled),
  };
}
