import type { AcquireRequest, AcquireResult, ScopeCounters, Settlement } from './acquire-request.js';
import type { BudgetStore, ThresholdMarks } from './budget-store.js';
import { CallBatches } from './call-batches.js';
import { ConnectionGate } from './connection-gate.js';
import { checkDurationMs, checkTimerRange } from './duration-ms.js';
import { checkKnownKeys } from './known-keys.js';
import { guardClient, guardPool, loadPg, type PgClient, type PgPool } from './load-pg.js';
import { pgErrorOf } from './postgres-error.js';
import { FUNCTIONS_VERSION, type Statements, schemaSql, statementsOf } from './postgres-sql.js';
import { untrustedSchema } from './postgres-trust.js';
import { reachingClient } from './reaching-client.js';
import { DEFAULT_RETENTION_MS } from './retention.js';
import type { StoredScope } from './scope-limits.js';
import { baseKeyOf } from './scope-windows.js';
import { StoreError } from './store-error.js';
import { checkedStoreUrl } from './store-url.js';

/** Options of a {@link PostgresBudgetStore}: one of `url` and `pool`. */
export interface PostgresBudgetStoreOptions {
  /** `postgres://user:password@host:5432/db`: the store makes (and `close()` ends) its own `pg.Pool`. */
  url?: string;
  /** Otherwise a caller's `pg.Pool` (not ended by `close()`). */
  pool?: unknown;
  /**
   * The schema of the budget's tables: letters, digits and `_` (at most 63), not PostgreSQL's own
   * (`pg_…`, `information_schema`). Default `switchboard`.
   */
  schema?: string;
  /**
   * `'on'` (the default): every reservation and settlement returns once its commit is on disk, whatever
   * the server's `synchronous_commit` (a server set to `off` is overridden for those transactions; a
   * stronger setting, such as waiting for a synchronous standby, is kept). `'off'`: settlements (only
   * they) return before their commit's WAL is flushed (`synchronous_commit = off` for that transaction), so
   * a crash of the server can lose the settlements of its last moments (up to three times
   * `wal_writer_delay`, 0.6 s by default): each such lease is back as held, and counts at its worst case
   * once it expires (the books err upwards, never below the bill). Reservations always wait for the disk.
   */
  synchronousCommit?: 'on' | 'off';
  /**
   * How long the server may take over one statement, in milliseconds (default 30,000; at most 2^31 − 1).
   * Every operation sets it as its transaction's `lock_timeout`, so a row lock held elsewhere ends the wait
   * on the server (nothing changed; the call ends as a `timeout`, as at its deadline, never as
   * `store_unreachable`: the server answers) on any pool, a caller's included; a call's own deadline ends its
   * wait sooner, its lease released behind it once the server answers; a pool
   * the store makes from a `url` also has it as its sessions' `statement_timeout`. The client gives up on a
   * statement 5 s later (`query_timeout`), after the server, so no backend is left waiting behind it.
   */
  statementTimeoutMs?: number;
}

type Query = (text: string, values?: readonly unknown[]) => Promise<Record<string, unknown>[]>;

/** One acquisition of a chain without windows, as budget_acquire takes it. */
interface ChainAcquisition {
  readonly keys: readonly string[];
  readonly limits: readonly (number | null)[];
  readonly maxInFlight: readonly (number | null)[];
  readonly ttlMs: number;
  readonly amount: number;
  readonly leaseId: string;
}

/** One settlement of a chain, as budget_settle takes it. */
interface ChainSettlement {
  readonly leaseId: string;
  readonly scopes: readonly StoredScope[];
  readonly settlement: Settlement;
}

/** Acquisitions (settlements) of one chain sent together at most (`budget_acquire_many`, `budget_settle_many`). */
const MAX_BATCH = 64;

const REASONS = new Set(['ended', 'spend', 'reserved', 'in_flight']);

/**
 * Deadlocks and serialization failures roll the whole transaction back: it is run again, as the same
 * operation (the same lease id, so it counts once), up to ATTEMPTS times in all and while the first try
 * began less than statementTimeoutMs ago, after a short random pause that grows with each try (two
 * transactions that met once do not meet again in step).
 */
const RETRIED = new Set(['40P01', '40001']);
/**
 * A statement cancelled (`57014`) sooner than `statement_timeout` could have passed by this process's clock:
 * not the store's timeout (a server whose clock was stepped forward fires its timers early; an operator's
 * `pg_cancel_backend`). It ran nothing (rolled back), so it is run again as the deadlocks are, within the same
 * bounds. One cancelled after its full timeout is a slow server's answer, and stays an error.
 */
const CANCELLED = '57014';
const ATTEMPTS = 8;
/** The pause before a retry: up to this many ms times the tries so far. */
const RETRY_PAUSE_MS = 5;
const TABLES = [
  'budget_scopes',
  'budget_leases',
  'budget_unsettled',
  'budget_lease_records',
  'budget_windows',
  'budget_thresholds',
  'budget_scope_shards',
];
const NO_ERROR = (): void => {};
/** Connections of a pool this store makes from a url. */
const POOL_SIZE = 10;
/**
 * How long the server may take over one statement before it gives up, by default (`statementTimeoutMs`):
 * a busy but healthy server is waited for; one that holds a statement this long (a row lock held
 * elsewhere) rolls it back itself, so no backend is left waiting for a client that gave up.
 */
const STATEMENT_TIMEOUT_MS = 30_000;
/** pg.Pool's error for a connection not made within its connectionTimeoutMillis. */
const CONNECT_TIMEOUT = /timeout exceeded when trying to connect|terminated due to connection timeout/i;
/** The client gives up on a statement this long after the server should have (`query_timeout`). */
const CLIENT_GRACE_MS = 5_000;

/**
 * Budget counters in PostgreSQL tables, shared by every process and machine that
 * uses the same database and schema, and durable: a settled call is a committed
 * row, so a crash or restart of the server loses nothing (no `ledger_lost`). Each
 * acquisition, settlement and read of the counters is one call of a function that
 * `migrate()` creates (`budget_acquire`, `budget_settle`, `budget_counters`), its
 * own transaction: one round trip, one commit. An acquisition takes the chain's
 * scope rows last, in key order, and reserves in every scope or in none; a settlement
 * adds to one of 16 shard rows per scope, never waiting on those rows. Every operation
 * is idempotent by lease id (its row in `budget_lease_records`), and run again on a
 * deadlock. Expired leases are swept by whichever operation next touches their scope.
 * The SQL is in docs/budgets-postgres-schema.md.
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
  readonly #durableSettlements: boolean;
  /** The server's bound on a statement (and, per transaction, on a lock wait); the client's is 5 s more. */
  readonly #statementTimeoutMs: number;
  /** At most the pool's size of statements at once: the rest wait here, never in the pool's timed queue. */
  readonly #gate: ConnectionGate;
  #migrated: Promise<void> | null = null;
  /** Acquisitions of a chain asked while one of it is on the server: sent together once it answers. */
  readonly #acquisitions = new CallBatches<ChainAcquisition, AcquireResult>(
    (asked) => this.#acquireSome(asked),
    MAX_BATCH,
  );
  /** Settlements of a chain asked while one of it is on the server: sent together once it answers. */
  readonly #settlements = new CallBatches<ChainSettlement, boolean>(
    (asked) => this.#settleSome(asked),
    MAX_BATCH,
  );
  /** When the server last answered a statement (performance.now()). */
  #answeredAt = Number.NEGATIVE_INFINITY;
  /** When a connection of this store's own pool last reached the server (TCP), before its startup. */
  #reachedAt = Number.NEGATIVE_INFINITY;
  #closed = false;

  constructor(options: PostgresBudgetStoreOptions) {
    if (options === null || typeof options !== 'object') {
      throw new TypeError('PostgresBudgetStore options must be an object with a url or a pool');
    }
    checkKnownKeys(
      options,
      ['url', 'pool', 'schema', 'synchronousCommit', 'statementTimeoutMs'],
      'PostgresBudgetStore options',
    );
    const synchronousCommit = options.synchronousCommit ?? 'on';
    if (synchronousCommit !== 'on' && synchronousCommit !== 'off') {
      throw new TypeError(
        `PostgresBudgetStore options.synchronousCommit must be 'on' or 'off', got ${JSON.stringify(synchronousCommit)}`,
      );
    }
    this.#durableSettlements = synchronousCommit === 'on';
    this.#statementTimeoutMs = Math.ceil(
      checkDurationMs(
        options.statementTimeoutMs ?? STATEMENT_TIMEOUT_MS,
        'PostgresBudgetStore options.statementTimeoutMs',
        1,
      ),
    );
    checkTimerRange(
      this.#statementTimeoutMs + CLIENT_GRACE_MS,
      'PostgresBudgetStore options.statementTimeoutMs + 5,000 (the client’s query_timeout)',
    );
    const schema = options.schema ?? 'switchboard';
    if (typeof schema !== 'string' || !/^[A-Za-z_][A-Za-z0-9_]{0,62}$/.test(schema)) {
      throw new TypeError(
        'PostgresBudgetStore options.schema must be an identifier of letters, digits and _ (at most 63), not starting with a digit',
      );
    }
    // PostgreSQL's own schemas: pg_catalog, pg_toast, pg_temp_<n>, information_schema (a name starting
    // pg_ is refused by CREATE SCHEMA; information_schema would put the ledger among the catalog's views).
    if (/^pg_/i.test(schema) || schema.toLowerCase() === 'information_schema') {
      throw new TypeError(
        `PostgresBudgetStore options.schema must not be a schema of PostgreSQL itself (pg_… or information_schema), got ${JSON.stringify(schema)}`,
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
      const pg = loadPg();
      this.#pool = new pg.Pool({
        Client: reachingClient(pg.Client, () => {
          this.#reachedAt = performance.now();
        }),
        connectionString: options.url,
        max: POOL_SIZE,
        // Fail fast while the server is away: the budget then refuses (or falls back). The gate keeps
        // callers out of the pool's queue, so this bounds making a connection, never a wait for one.
        connectionTimeoutMillis: 2000,
        statement_timeout: this.#statementTimeoutMs,
        query_timeout: this.#statementTimeoutMs + CLIENT_GRACE_MS,
        idleTimeoutMillis: 10_000,
        // An idle pool never holds the process open; close() ends it for good.
        allowExitOnIdle: true,
      });
      this.#owned = true;
    } else {
      throw new TypeError('PostgresBudgetStore needs options.url (postgres://…) or options.pool (a pg.Pool)');
    }
    // A connection that dies (a server restart), idle or just connected, is reported to a listener: without
    // one it would crash the process.
    guardPool(this.#pool);
    const max = this.#pool.options?.max;
    this.#gate = new ConnectionGate(
      typeof max === 'number' && Number.isSafeInteger(max) && max > 0 ? max : POOL_SIZE,
    );
    this.schema = schema;
    this.#sql = statementsOf(schema);
  }

  /**
   * Creates the schema and its tables when missing (idempotent). Run on first use too. Refuses, as a
   * configuration error naming the object and the role, a schema that a role other than the current
   * user, a superuser or a role the user is a member of owns or may create objects in (or whose objects
   * it owns, or may add triggers to): the functions run with the caller's rights, so that role could run
   * its own code as the caller.
   */
  migrate(): Promise<void> {
    this.#migrated ??= this.#migrate().catch((error: unknown) => {
      this.#migrated = null;
      throw error;
    });
    return this.#migrated;
  }

  async acquire(request: AcquireRequest): Promise<AcquireResult> {
    const keys = request.scopes.map((scope) => scope.key);
    const windowed = request.scopes.some((scope) => scope.window !== null && scope.window !== undefined);
    if (!windowed) {
      // The chain's acquisitions asked while one of them is on the server go together once it answers.
      const limits = request.scopes.map((scope) =>
        scope.limitNanoUsd === null ? null : integer(scope.limitNanoUsd),
      );
      const maxInFlight = request.scopes.map((scope) => scope.maxInFlight);
      const ttlMs = Math.ceil(request.ttlMs);
      const chain = JSON.stringify([keys, limits, maxInFlight, ttlMs]);
      return this.#acquisitions.run(chain, {
        keys,
        limits,
        maxInFlight,
        ttlMs,
        amount: integer(request.amountNanoUsd),
        leaseId: request.leaseId,
      });
    }
    // One function call: the rows locked in key order, a sweep where due, the checks and the reservation.
    const values: unknown[] = [
      keys,
      request.scopes.map((scope) => (scope.limitNanoUsd === null ? null : integer(scope.limitNanoUsd))),
      request.scopes.map((scope) => scope.maxInFlight),
      integer(request.amountNanoUsd),
      request.leaseId,
      Math.ceil(request.ttlMs),
      this.#retentionMs,
      this.#statementTimeoutMs,
      request.scopes.map((scope) => baseKeyOf(scope.key)),
      request.scopes.map((scope) => scope.window?.startMs ?? -1),
      request.scopes.map((scope) => scope.window?.endMs ?? -1),
    ];
    const [row] = await this.#call(this.#sql.acquireWindowed, values);
    return this.#acquired(row, keys.length);
  }

  /** Acquisitions of one chain: one `budget_acquire`, or `budget_acquire_many` for several. */
  async #acquireSome(asked: readonly ChainAcquisition[]): Promise<AcquireResult[]> {
    const [first] = asked;
    if (first === undefined) return [];
    const common = [this.#retentionMs, this.#statementTimeoutMs];
    if (asked.length === 1) {
      const [row] = await this.#call(this.#sql.acquire, [
        first.keys,
        first.limits,
        first.maxInFlight,
        first.amount,
        first.leaseId,
        first.ttlMs,
        ...common,
      ]);
      return [this.#acquired(row, first.keys.length)];
    }
    const rows = await this.#call(this.#sql.acquireMany, [
      first.keys,
      first.limits,
      first.maxInFlight,
      asked.map((one) => one.amount),
      asked.map((one) => one.leaseId),
      first.ttlMs,
      ...common,
    ]);
    if (rows.length !== asked.length) {
      throw new StoreError(
        `PostgreSQL at ${this.#where}: budget_acquire_many returned ${rows.length} rows for ${asked.length} leases`,
      );
    }
    return rows.map((row) => this.#acquired(row, first.keys.length));
  }

  /** budget_acquire's row (or budget_acquire_windowed's) as an answer. */
  #acquired(row: Record<string, unknown> | undefined, n: number): AcquireResult {
    if (row === undefined)
      throw new StoreError(`PostgreSQL at ${this.#where}: budget_acquire returned no row`);
    const scopeIndex = Number(row.scope_index);
    const reason = String(row.reason);
    const nowMs = row.now_ms === undefined || row.now_ms === null ? undefined : Number(row.now_ms);
    if (reason === 'window' && nowMs !== undefined && scopeIndex >= 0 && scopeIndex < n) {
      return { granted: false, reason, scopeIndex, counters: countersOf({}, 1)[0] as ScopeCounters, nowMs };
    }
    const counters = countersOf(row, n);
    if (row.granted === true) return { granted: true, counters };
    if (!REASONS.has(reason) || !(scopeIndex >= 0 && scopeIndex < n)) {
      throw new StoreError(`PostgreSQL at ${this.#where}: budget_acquire refused for an unknown reason`);
    }
    return {
      granted: false,
      reason: reason as 'ended' | 'spend' | 'reserved' | 'in_flight',
      scopeIndex,
      counters: counters[scopeIndex] as ScopeCounters,
      ...(nowMs === undefined ? {} : { nowMs }),
    };
  }

  settle(leaseId: string, scopes: readonly StoredScope[], settlement: Settlement): Promise<boolean> {
    // The chain's settlements asked while one of them is on the server go together once it answers.
    const chain = JSON.stringify(scopes.map((scope) => scope.key));
    return this.#settlements.run(chain, { leaseId, scopes, settlement });
  }

  /** Settlements of one chain: one `budget_settle`, or `budget_settle_many` for several. */
  async #settleSome(asked: readonly ChainSettlement[]): Promise<boolean[]> {
    const [first] = asked;
    if (first === undefined) return [];
    if (asked.length === 1) {
      const [row] = await this.#call(
        this.#sql.settle,
        this.#settleValues(first.leaseId, first.scopes, first.settlement),
      );
      return [row?.held === true];
    }
    const rows = await this.#call(this.#sql.settleMany, [
      asked.map((one) => one.leaseId),
      first.scopes.map((scope) => scope.key),
      asked.map((one) => integer(one.settlement.actualNanoUsd)),
      asked.map((one) => one.settlement.unsettled === true),
      asked.map((one) => one.settlement.leased === true),
      this.#retentionMs,
      this.#durableSettlements,
      this.#statementTimeoutMs,
    ]);
    if (rows.length !== asked.length) {
      throw new StoreError(
        `PostgreSQL at ${this.#where}: budget_settle_many returned ${rows.length} rows for ${asked.length} leases`,
      );
    }
    return rows.map((row) => row.held === true);
  }

  /** budget_settle's arguments. */
  #settleValues(leaseId: string, scopes: readonly StoredScope[], settlement: Settlement): unknown[] {
    return [
      leaseId,
      scopes.map((scope) => scope.key),
      integer(settlement.actualNanoUsd),
      settlement.unsettled === true,
      settlement.leased === true,
      this.#retentionMs,
      this.#durableSettlements,
      this.#statementTimeoutMs,
    ];
  }

  async renew(
    leases: readonly { leaseId: string; scopes: readonly StoredScope[] }[],
    ttlMs: number,
  ): Promise<string[]> {
    if (leases.length === 0) return [];
    const ids = leases.flatMap(({ leaseId, scopes }) => scopes.map(() => leaseId));
    const keys = leases.flatMap(({ scopes }) => scopes.map((scope) => scope.key));
    const renewed = await this.#call(this.#sql.renew, [
      ids,
      keys,
      Math.ceil(ttlMs),
      this.#statementTimeoutMs,
    ]);
    const extended = new Map<string, number>();
    for (const row of renewed)
      extended.set(String(row.lease_id), (extended.get(String(row.lease_id)) ?? 0) + 1);
    return leases.flatMap(({ leaseId, scopes }) =>
      (extended.get(leaseId) ?? 0) === scopes.length ? [] : [leaseId],
    );
  }

  async counters(scopes: readonly StoredScope[]): Promise<ScopeCounters[]> {
    const keys = scopes.map((scope) => scope.key);
    const [row] = await this.#call(this.#sql.counters, [keys, this.#retentionMs, this.#statementTimeoutMs]);
    return countersOf(row ?? {}, keys.length);
  }

  /** The settlement and the threshold marks after it, in one transaction (`budget_settle_marked`): one round trip. */
  async settleAndMark(
    leaseId: string,
    scopes: readonly StoredScope[],
    settlement: Settlement,
    levels: readonly (readonly number[] | null)[],
  ): Promise<{ held: boolean; marks: ThresholdMarks[] }> {
    const [row] = await this.#call(this.#sql.settleMarked, [
      ...this.#settleValues(leaseId, scopes, settlement),
      ...levelValues(levels),
    ]);
    return { held: row?.held === true, marks: marksOf(row, scopes.length) };
  }

  async markThresholds(
    scopes: readonly StoredScope[],
    levels: readonly (readonly number[] | null)[],
  ): Promise<ThresholdMarks[]> {
    const [row] = await this.#call(this.#sql.markThresholds, [
      scopes.map((scope) => scope.key),
      ...levelValues(levels),
      this.#retentionMs,
      this.#statementTimeoutMs,
    ]);
    return marksOf(row, scopes.length);
  }

  /** PostgreSQL's clock (`now()`), in ms since the epoch: the clock that decides calendar windows. */
  async clockMs(): Promise<number> {
    const [row] = await this.#call(
      'SELECT pg_catalog.floor(pg_catalog.date_part($1, pg_catalog.now()) * 1000)::pg_catalog.int8 AS now_ms',
      ['epoch'],
    );
    return Number(row?.now_ms);
  }

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
    await this.#gate.enter();
    try {
      await this.#migrateHolding();
    } finally {
      this.#gate.leave();
    }
  }

  async #migrateHolding(): Promise<void> {
    const client = await this.#connect();
    let broken: Error | undefined;
    try {
      const query = async (text: string, values?: readonly unknown[]) =>
        (await this.#query(client, text, values)).rows;
      await query('BEGIN');
      // What migrate() runs and creates resolves names in PostgreSQL's catalog only, whatever the
      // session's search_path (a caller's pool may put a schema others write to first).
      await query("SELECT pg_catalog.set_config('search_path', 'pg_catalog, pg_temp', true)");
      await this.#trusted(query);
      // Made already (by a DBA, another process, or an earlier run): nothing to create, and maybe no right to.
      if (!(await this.#ready(query))) {
        // Processes starting together would race on CREATE … IF NOT EXISTS: one at a time.
        await query('SELECT pg_catalog.pg_advisory_xact_lock(pg_catalog.hashtext($1))', [
          `switchboard-budget:${this.schema}`,
        ]);
        if (!(await this.#ready(query))) await query(schemaSql(this.schema));
        await this.#trusted(query);
      }
      await query('COMMIT');
      this.#answeredAt = performance.now();
    } catch (error) {
      broken = error instanceof Error ? error : new Error(String(error));
      // A server's error, or the store's refusal of the schema: the connection is fine, the transaction undone.
      if (typeof (error as { code?: unknown }).code === 'string' || error instanceof StoreError) {
        await client.query('ROLLBACK').then(() => (broken = undefined), NO_ERROR);
      }
      throw this.#error(error, true);
    } finally {
      client.release(broken ?? false);
    }
  }

  /**
   * Refuses (a configuration error: no fallback, `store_misconfigured`) a schema that another role owns,
   * may create objects in, or whose objects it owns or may add triggers to: see postgres-trust.ts.
   */
  async #trusted(query: Query): Promise<void> {
    const refusal = await untrustedSchema(query, this.schema);
    if (refusal !== null) throw new StoreError(`PostgreSQL at ${this.#where}: ${refusal}`, true, true);
  }

  /** The tables and the functions of this version are there. */
  async #ready(query: Query): Promise<boolean> {
    const [found] = await query(
      `SELECT (SELECT count(*)::integer FROM pg_catalog.pg_tables WHERE schemaname = $1 AND tablename = ANY($2::pg_catalog.text[])) AS tables,
  (SELECT count(*)::integer FROM pg_catalog.pg_proc AS proc JOIN pg_catalog.pg_namespace AS ns ON ns.oid = proc.pronamespace
    WHERE ns.nspname = $1 AND proc.proname = 'budget_settle' AND pg_catalog.obj_description(proc.oid, 'pg_proc') = $3) AS functions,
  (SELECT count(*)::integer FROM pg_catalog.pg_proc AS proc JOIN pg_catalog.pg_namespace AS ns ON ns.oid = proc.pronamespace
    WHERE ns.nspname = $1 AND proc.proname = 'budget_settle_marked') AS marked,
  (SELECT count(*)::integer FROM pg_catalog.pg_proc AS proc JOIN pg_catalog.pg_namespace AS ns ON ns.oid = proc.pronamespace
    WHERE ns.nspname = $1 AND proc.proname IN ('budget_acquire_many', 'budget_settle_many')) AS many`,
      [this.schema, TABLES, FUNCTIONS_VERSION],
    );
    return (
      found?.tables === TABLES.length && found?.functions === 1 && found?.marked === 1 && found?.many === 2
    );
  }

  async #connect(): Promise<PgClient> {
    let client: PgClient;
    const began = performance.now();
    for (;;) {
      try {
        client = await this.#pool.connect();
        break;
      } catch (error) {
        // A connection not made within the pool's connectionTimeoutMillis, from a server that answered within
        // the last statementTimeoutMs, or whose socket reached the server while this call waited (the store's
        // own pool): a busy server (its backends start slowly under load), not an unreachable one, so made
        // again, until statementTimeoutMs has passed. A refused or broken connection is not, nor one that
        // never reached the server (a host that does not answer at all).
        const now = performance.now();
        if (
          CONNECT_TIMEOUT.test(error instanceof Error ? error.message : '') &&
          (now - this.#answeredAt < this.#statementTimeoutMs || this.#reachedAt >= began) &&
          now - began < this.#statementTimeoutMs
        ) {
          continue;
        }
        // Nothing was sent: nothing ran.
        throw this.#error(error, true);
      }
    }
    // A connection that dies while checked out emits 'error' on the client: caught here, the query rejects
    // (a client of a caller's pool connected before this store was made is guarded here, once).
    guardClient(client);
    return client;
  }

  /**
   * One statement (a function call), after the migration, in its own transaction (autocommit: one round trip,
   * one commit); run again on a deadlock. Errors in words, never a secret.
   */
  async #call(text: string, values: readonly unknown[]): Promise<Record<string, unknown>[]> {
    if (this.#closed) throw new StoreError(`PostgreSQL at ${this.#where}: the store was closed`, false, true);
    await this.migrate();
    await this.#gate.enter();
    try {
      return await this.#callHolding(text, values);
    } finally {
      this.#gate.leave();
    }
  }

  async #callHolding(text: string, values: readonly unknown[]): Promise<Record<string, unknown>[]> {
    const began = performance.now();
    for (let attempt = 1; ; attempt++) {
      const client = await this.#connect();
      let broken: Error | undefined;
      let released = false;
      const sent = performance.now();
      try {
        const { rows } = await this.#query(client, text, values);
        this.#answeredAt = performance.now();
        return rows;
      } catch (error) {
        const code = (error as { code?: unknown }).code;
        // A server's error (an SQLSTATE): the statement, its own transaction, was rolled back and the
        // connection stays usable; it ran nothing. Any other (a timeout, a lost connection) destroys the
        // connection, and the statement may have committed before its answer was lost.
        const sqlState = typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code);
        if (!sqlState) broken = error instanceof Error ? error : new Error(String(error));
        const early = code === CANCELLED && performance.now() - sent < this.#statementTimeoutMs;
        if (
          sqlState &&
          (RETRIED.has(code) || early) &&
          attempt < ATTEMPTS &&
          performance.now() - began < this.#statementTimeoutMs
        ) {
          client.release(broken ?? false);
          released = true;
          await new Promise((resolve) => setTimeout(resolve, Math.random() * RETRY_PAUSE_MS * attempt));
          continue;
        }
        throw this.#error(error, sqlState);
      } finally {
        if (!released) client.release(broken ?? false);
      }
    }
  }

  /**
   * A statement on a connection of either pool, which the client gives up on 5 s after the server should
   * have (`query_timeout` per query: a caller's pool may have none, or a shorter one that would leave the
   * server waiting behind it).
   */
  #query(client: PgClient, text: string, values?: readonly unknown[]) {
    return client.query({ text, values, query_timeout: this.#statementTimeoutMs + CLIENT_GRACE_MS });
  }

  #error(error: unknown, ranNothing: boolean): StoreError {
    return pgErrorOf(error, this.#where, this.#secrets, ranNothing);
  }
}

/** The counters of a chain, from a function's arrays (in the chain's order). */
function countersOf(row: Record<string, unknown>, length: number): ScopeCounters[] {
  const at = (name: string, index: number) => {
    const values = row[name];
    return Array.isArray(values) ? Number(values[index] ?? 0) : 0;
  };
  return Array.from({ length }, (_, index) => ({
    spentNanoUsd: at('spent', index),
    reservedNanoUsd: at('reserved', index),
    inFlight: at('in_flight', index),
    unsettledNanoUsd: at('unsettled', index),
    unsettledCalls: at('unsettled_calls', index),
  }));
}

/** budget_mark_thresholds' asked, levels (n per scope, flattened) and n. */
function levelValues(levels: readonly (readonly number[] | null)[]): unknown[] {
  const n = Math.max(0, ...levels.map((each) => each?.length ?? 0));
  return [
    levels.map((each) => each !== null),
    levels.flatMap((each) =>
      Array.from({ length: n }, (_, k) => integer(each?.[k] ?? Number.MAX_SAFE_INTEGER)),
    ),
    n,
  ];
}

/** Each scope's marks, from a function's arrays. */
function marksOf(row: Record<string, unknown> | undefined, length: number): ThresholdMarks[] {
  const at = (name: string, index: number) => Number((row?.[name] as unknown[] | undefined)?.[index] ?? 0);
  return Array.from({ length }, (_, index) => ({
    from: at('marks_from', index),
    to: at('marks_to', index),
    spentNanoUsd: at('spent', index),
  }));
}

/** A whole number of nano-dollars, as PostgreSQL's bigint takes it. */
function integer(value: number): number {
  return Math.round(value);
}

/** The url checked: postgres:// or postgresql://, named in errors without its userinfo. */
function parseUrl(text: string): URL {
  return checkedStoreUrl(
    text,
    ['postgres:', 'postgresql:'],
    'PostgresBudgetStore options.url must be a postgres:// address, e.g. postgres://user@127.0.0.1:5432/db (the given text is not a URL; not shown, as it may hold a password)',
    'PostgresBudgetStore options.url must be a postgres:// or postgresql:// address',
  );
}

function whereOfPool(pool: PgPool): string {
  const { host, port, database } = pool.options ?? {};
  if (typeof host !== 'string' || host === '') return 'the given pool';
  return `${host}:${typeof port === 'number' || typeof port === 'string' ? port : 5432}${typeof database === 'string' ? `/${database}` : ''}`;
}
