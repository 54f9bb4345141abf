import type {
  AcquireRequest,
  AcquireResult,
  BudgetStore,
  ScopeCounters,
  Settlement,
} from './budget-store.js';
import { checkKnownKeys } from './known-keys.js';
import { loadPg, type PgClient, type PgPool } from './load-pg.js';
import { pgErrorOf } from './postgres-error.js';
import { type Statements, schemaSql, statementsOf } from './postgres-sql.js';
import { DEFAULT_RETENTION_MS } from './retention.js';
import type { StoredScope } from './scope-limits.js';
import { StoreError } from './store-error.js';

/** Options of a {@link PostgresBudgetStore}: one of `url` and `pool`. */
export interface PostgresBudgetStoreOptions {
  /** `postgres://user:password@host:5432/db`: the store makes (and `close()` ends) its own `pg.Pool`. */
  url?: string;
  /** Otherwise a caller's `pg.Pool` (not ended by `close()`). */
  pool?: unknown;
  /** The schema of the budget's tables: letters, digits and `_`. Default `switchboard`. */
  schema?: string;
}

type Query = (text: string, values?: readonly unknown[]) => Promise<Record<string, unknown>[]>;

/** Deadlocks and serialization failures roll the whole transaction back: it is run again. */
const RETRIED = new Set(['40P01', '40001']);
const ATTEMPTS = 4;
const TABLES = ['budget_scopes', 'budget_leases', 'budget_unsettled', 'budget_lease_records'];
const NO_ERROR = (): void => {};

/**
 * Budget counters in PostgreSQL tables, shared by every process and machine that
 * uses the same database and schema, and durable: a settled call is a committed
 * row, so a crash or restart of the server loses nothing (no `ledger_lost`). Each
 * acquisition, settlement and sweep is one transaction that locks the chain's
 * scope rows in key order; a reservation is a conditional `UPDATE … WHERE spent +
 * reserved + amount <= limit`. Every operation is idempotent by lease id (its row
 * in `budget_lease_records`). Expired leases are swept by whichever operation next
 * touches their scope. The tables' SQL is in docs/budgets.md.
 */
export class PostgresBudgetStore implements BudgetStore {
  /** The schema of the tables. */
  readonly schema: string;
  readonly #pool: PgPool;
  readonly #owned: boolean;
  readonly #where: string;
  /** Removed from any message, besides URL userinfo. */
  readonly #secrets: readonly string[];
  readonly #sql: Statements;
  readonly #retentionMs = DEFAULT_RETENTION_MS;
  #migrated: Promise<void> | null = null;
  #closed = false;

  constructor(options: PostgresBudgetStoreOptions) {
    if (options === null || typeof options !== 'object') {
      throw new TypeError('PostgresBudgetStore options must be an object with a url or a pool');
    }
    checkKnownKeys(options, ['url', 'pool', 'schema'], 'PostgresBudgetStore options');
    const schema = options.schema ?? 'switchboard';
    if (typeof schema !== 'string' || !/^[A-Za-z_][A-Za-z0-9_]{0,62}$/.test(schema)) {
      throw new TypeError(
        'PostgresBudgetStore options.schema must be an identifier of letters, digits and _ (at most 63), not starting with a digit',
      );
    }
    if (options.url !== undefined && options.pool !== undefined) {
      throw new TypeError('PostgresBudgetStore takes one of options.url and options.pool, not both');
    }
    if (options.pool !== undefined) {
      const pool = options.pool as Partial<PgPool> | null;
      if (pool === null || typeof pool !== 'object' || typeof pool.connect !== 'function') {
        throw new TypeError('PostgresBudgetStore options.pool must be a pg.Pool');
      }
      this.#pool = pool as PgPool;
      this.#owned = false;
      this.#secrets = [];
      this.#where = whereOfPool(this.#pool);
    } else if (typeof options.url === 'string' && options.url !== '') {
      const url = parseUrl(options.url);
      const password = decodeURIComponent(url.password);
      this.#secrets = password.length >= 3 ? [password, url.password] : [];
      this.#where = `${url.host}${url.pathname === '/' ? '' : url.pathname}`;
      this.#pool = new (loadPg().Pool)({
        connectionString: options.url,
        max: 10,
        // Fail fast while the server is away: the budget then refuses (or falls back).
        connectionTimeoutMillis: 2000,
        query_timeout: 5000,
        idleTimeoutMillis: 10_000,
        // An idle pool never holds the process open; close() ends it for good.
        allowExitOnIdle: true,
      });
      this.#owned = true;
    } else {
      throw new TypeError('PostgresBudgetStore needs options.url (postgres://…) or options.pool (a pg.Pool)');
    }
    // An idle connection that dies (a server restart) is reported here: without a listener it would crash the process.
    this.#pool.on('error', NO_ERROR);
    this.schema = schema;
    this.#sql = statementsOf(schema);
  }

  /** Creates the schema and its tables when missing (idempotent). Run on first use too. */
  migrate(): Promise<void> {
    this.#migrated ??= this.#migrate().catch((error: unknown) => {
      this.#migrated = null;
      throw error;
    });
    return this.#migrated;
  }

  async acquire(request: AcquireRequest): Promise<AcquireResult> {
    const keys = request.scopes.map((scope) => scope.key);
    return this.#transaction(async (query) => {
      // The chain's rows, locked in key order, with their counters: the sweep runs only where one is due.
      const locked = await query(this.#sql.lock, [keys, this.#retentionMs, request.leaseId]);
      let rows = keys.map((key) => locked.find((row) => row.scope_key === key) as Record<string, unknown>);
      if (locked.some((row) => row.due === true)) {
        await query(this.#sql.sweep, [keys, this.#retentionMs]);
        rows = await query(this.#sql.read, [keys, request.leaseId]);
      }
      const counters = rows.map(countersOf);
      const record = locked[0]?.record ?? null;
      if (record === 'held') return { granted: true, counters };
      if (record !== null) {
        return { granted: false, reason: 'ended', scopeIndex: 0, counters: counters[0] as ScopeCounters };
      }
      const amount = request.amountNanoUsd;
      const refusal = refusalOf(request.scopes, counters, amount);
      if (refusal !== null) return refusal;
      const [fit] = await query(this.#sql.grant, [
        keys,
        request.scopes.map((scope) => (scope.limitNanoUsd === null ? null : integer(scope.limitNanoUsd))),
        request.scopes.map((scope) => scope.maxInFlight),
        integer(amount),
        request.leaseId,
        Math.ceil(request.ttlMs),
        keys.at(-1),
      ]);
      // The rows are locked and were checked: a conditional update that misses one is a bug, rolled back.
      if (fit?.fit !== true)
        throw new StoreError(`PostgreSQL at ${this.#where}: a reservation did not fit after its check`);
      return {
        granted: true,
        counters: counters.map((row) => ({
          ...row,
          reservedNanoUsd: row.reservedNanoUsd + amount,
          inFlight: row.inFlight + 1,
        })),
      };
    });
  }

  async settle(leaseId: string, scopes: readonly StoredScope[], settlement: Settlement): Promise<boolean> {
    const keys = scopes.map((scope) => scope.key);
    return this.#transaction(async (query) => {
      // The lease's record, locked: a settlement sent twice waits here for the first, then answers as it did.
      const [record] = await query(this.#sql.record, [leaseId]);
      if (record?.state === 'ended') return record.answer === true;
      let held = record?.state === 'held';
      const granted = held || settlement.leased === true;
      const taken = await query(this.#sql.take, [leaseId, keys]);
      const actual = integer(settlement.actualNanoUsd);
      const unsettled = settlement.unsettled === true;
      // The scopes' rows are locked only by the last statement (in key order), so a settlement holds
      // them for one statement and its commit. Deltas commute: nothing here needs to read them first.
      const sorted = [...keys].sort();
      const deltas = sorted.map(() => ({ spent: 0, reserved: 0, inFlight: 0, unsettled: 0, calls: 0 }));
      const entryKeys: string[] = [];
      for (const [index, key] of sorted.entries()) {
        const delta = deltas[index] as (typeof deltas)[number];
        const lease = taken.find((row) => row.kind === 'lease' && row.scope_key === key);
        const worst = taken.find((row) => row.kind === 'unsettled' && row.scope_key === key);
        let count = true;
        if (lease !== undefined) {
          delta.reserved = -Number(lease.amount_nano_usd);
          delta.inFlight = -1;
          // Expired but not swept yet: as if swept (its worst case counted) and now replaced by this settlement.
          if (lease.expired === true) held = false;
        } else {
          held = false;
          if (worst !== undefined) {
            const amount = Number(worst.amount_nano_usd);
            delta.spent -= amount;
            delta.unsettled -= amount;
            delta.calls -= 1;
          } else if (granted) {
            // Pruned (or settled before and forgotten): it stays at its worst case, counted once.
            count = false;
          }
        }
        if (count) {
          delta.spent += actual;
          if (unsettled) {
            delta.unsettled += actual;
            delta.calls += 1;
            entryKeys.push(key);
          }
        }
      }
      await query(this.#sql.end, [
        sorted,
        deltas.map((delta) => delta.spent),
        deltas.map((delta) => delta.reserved),
        deltas.map((delta) => delta.inFlight),
        deltas.map((delta) => delta.unsettled),
        deltas.map((delta) => delta.calls),
        entryKeys,
        leaseId,
        actual,
        keys.at(-1) ?? '',
        held,
        unsettled,
        this.#retentionMs,
      ]);
      return held;
    });
  }

  async renew(
    leases: readonly { leaseId: string; scopes: readonly StoredScope[] }[],
    ttlMs: number,
  ): Promise<string[]> {
    if (leases.length === 0) return [];
    const ids = leases.flatMap(({ leaseId, scopes }) => scopes.map(() => leaseId));
    const keys = leases.flatMap(({ scopes }) => scopes.map((scope) => scope.key));
    const renewed = await this.#transaction((query) => query(this.#sql.renew, [ids, keys, Math.ceil(ttlMs)]));
    const extended = new Map<string, number>();
    for (const row of renewed)
      extended.set(String(row.lease_id), (extended.get(String(row.lease_id)) ?? 0) + 1);
    return leases.flatMap(({ leaseId, scopes }) =>
      (extended.get(leaseId) ?? 0) === scopes.length ? [] : [leaseId],
    );
  }

  async counters(scopes: readonly StoredScope[]): Promise<ScopeCounters[]> {
    const keys = scopes.map((scope) => scope.key);
    return this.#transaction(async (query) => {
      await query(this.#sql.sweep, [keys, this.#retentionMs]);
      return (await query(this.#sql.read, [keys, ''])).map(countersOf);
    });
  }

  /** Nothing to do: a committed ledger is never lost, so no scope is ever `ledger_lost`. */
  async resetLedger(): Promise<void> {}

  /** Ends the pool when this store made it (from a `url`); a caller's pool is left open. */
  async close(): Promise<void> {
    if (!this.#owned || this.#closed) return;
    this.#closed = true;
    await this.#pool.end().catch(() => {});
  }

  /** Only where it connects: never the password. */
  toJSON(): { where: string; schema: string } {
    return { where: this.#where, schema: this.schema };
  }

  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return `PostgresBudgetStore ${JSON.stringify(this.toJSON())}`;
  }

  async #migrate(): Promise<void> {
    await this.#run(async (query) => {
      // Made already (by a DBA, or another process): nothing to create, and no right to create anything needed.
      const [found] = await query(
        'SELECT count(*)::integer AS tables FROM pg_catalog.pg_tables WHERE schemaname = $1 AND tablename = ANY($2::text[])',
        [this.schema, TABLES],
      );
      if (found?.tables === TABLES.length) return;
      // Processes starting together would race on CREATE … IF NOT EXISTS: one at a time.
      await query('SELECT pg_advisory_xact_lock(hashtext($1))', [`switchboard-budget:${this.schema}`]);
      await query(schemaSql(this.schema));
    });
  }

  /** Runs `work` in a transaction, after the migration; retried on a deadlock. Errors in words, never a secret. */
  async #transaction<T>(work: (query: Query) => Promise<T>): Promise<T> {
    if (this.#closed) throw new StoreError(`PostgreSQL at ${this.#where}: the store was closed`, false, true);
    await this.migrate();
    return this.#run(work);
  }

  async #run<T>(work: (query: Query) => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      let client: PgClient;
      try {
        client = await this.#pool.connect();
      } catch (error) {
        // Nothing was sent: nothing ran.
        throw this.#error(error, true);
      }
      // A connection that dies while checked out emits 'error' on the client: caught here, the query rejects.
      client.on('error', NO_ERROR);
      let committing = false;
      let broken: Error | undefined;
      try {
        const query: Query = async (text, values) => (await client.query(text, values)).rows;
        await query('BEGIN');
        const result = await work(query);
        committing = true;
        await query('COMMIT');
        return result;
      } catch (error) {
        broken = error instanceof Error ? error : new Error(String(error));
        const code = (error as { code?: unknown }).code;
        // A server's error (an SQLSTATE) leaves the connection usable once rolled back; any other (a
        // timeout, a broken connection) destroys it, and the server rolls the transaction back itself.
        if (!committing && typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code)) {
          await client.query('ROLLBACK').then(() => (broken = undefined), NO_ERROR);
        }
        if (!committing && typeof code === 'string' && RETRIED.has(code) && attempt < ATTEMPTS) continue;
        // Before COMMIT was sent, the transaction was rolled back (or dies with its connection): nothing ran.
        throw this.#error(error, !committing);
      } finally {
        client.removeListener('error', NO_ERROR);
        client.release(broken ?? false);
      }
    }
  }

  #error(error: unknown, ranNothing: boolean): StoreError {
    return pgErrorOf(error, this.#where, this.#secrets, ranNothing);
  }
}

function refusalOf(
  scopes: readonly StoredScope[],
  counters: readonly ScopeCounters[],
  amount: number,
): AcquireResult | null {
  // Out of money in any scope first (waiting cannot help), then held by reservations (it can), then slots.
  for (const [index, scope] of scopes.entries()) {
    const row = counters[index] as ScopeCounters;
    if (scope.limitNanoUsd !== null && row.spentNanoUsd + amount > scope.limitNanoUsd) {
      return { granted: false, reason: 'spend', scopeIndex: index, counters: row };
    }
  }
  for (const [index, scope] of scopes.entries()) {
    const row = counters[index] as ScopeCounters;
    if (scope.limitNanoUsd !== null && row.spentNanoUsd + row.reservedNanoUsd + amount > scope.limitNanoUsd) {
      return { granted: false, reason: 'reserved', scopeIndex: index, counters: row };
    }
  }
  for (const [index, scope] of scopes.entries()) {
    const row = counters[index] as ScopeCounters;
    if (scope.maxInFlight !== null && row.inFlight >= scope.maxInFlight) {
      return { granted: false, reason: 'in_flight', scopeIndex: index, counters: row };
    }
  }
  return null;
}

function countersOf(row: Record<string, unknown>): ScopeCounters {
  return {
    spentNanoUsd: Number(row.spent),
    reservedNanoUsd: Number(row.reserved),
    inFlight: Number(row.in_flight),
    unsettledNanoUsd: Number(row.unsettled),
    unsettledCalls: Number(row.unsettled_calls),
  };
}

/** A whole number of nano-dollars, as PostgreSQL's bigint takes it. */
function integer(value: number): number {
  return Math.round(value);
}

/** The url checked: postgres:// or postgresql://, named in errors without its userinfo. */
function parseUrl(text: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new TypeError(
      'PostgresBudgetStore options.url must be a postgres:// address, e.g. postgres://user@127.0.0.1:5432/db (the given text is not a URL; not shown, as it may hold a password)',
    );
  }
  if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:') {
    throw new TypeError(
      `PostgresBudgetStore options.url must be a postgres:// or postgresql:// address, got ${url.protocol}// at ${url.host}`,
    );
  }
  return url;
}

function whereOfPool(pool: PgPool): string {
  const { host, port, database } = pool.options ?? {};
  if (typeof host !== 'string' || host === '') return 'the given pool';
  return `${host}:${typeof port === 'number' || typeof port === 'string' ? port : 5432}${typeof database === 'string' ? `/${database}` : ''}`;
}
