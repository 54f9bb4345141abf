import { randomUUID } from 'node:crypto';
import type { CallObserver } from '@switchboard/adapter';
import { describeError } from './describe-error.js';
import { registerExitFlush, unregisterExitFlush } from './exit-flush.js';
import { journalEndpoint, journalLineText } from './journal-line.js';
import { guardPool, isPgPool, type PgPool, pgLabel, pgPool } from './load-pg.js';
import {
  insertSql,
  journalSchema,
  migrateSql,
  PIN_SEARCH_PATH,
  UNTRUSTED_ROLES_SQL,
  untrustedText,
} from './postgres-journal-sql.js';
import { processHost } from './process-host.js';
import type { EndpointInfo, TelemetryRecord } from './telemetry-record.js';

/** Options of {@link PostgresJournal}. */
export interface PostgresJournalOptions {
  /** `postgres://user:password@host:port/database`: a pool of `pg` is made for it (and ended by `close()`). */
  readonly url?: string;
  /** A `pg.Pool` of the caller's instead (not ended by `close()`). */
  readonly pool?: unknown;
  /** The schema of the journal's table (`<schema>.journal`); default `switchboard`. */
  readonly schema?: string;
  /** The endpoint the observed adapter calls, as `CallJournal` takes it. */
  readonly endpoint?: EndpointInfo | null;
  /** Most lines held while not yet written (waiting, or kept for a retry); default 10,000. Past it, a line is dropped and counted. */
  readonly maxBufferedLines?: number;
  /** Most rows one INSERT writes; default 500. */
  readonly batchLines?: number;
  /** Longest a line waits before its batch is written, in ms; default 100. */
  readonly flushIntervalMs?: number;
  /** Longest `close()` keeps retrying what is left before counting it dropped, in ms; default 10,000. */
  readonly closeTimeoutMs?: number;
  /** Count what is left unwritten at exit, and say it; default true. */
  readonly exitHooks?: boolean;
  /** Told of each failed write (its lines stay buffered and are retried). */
  readonly onError?: (error: unknown) => void;
  /** Told the journal's warnings (lines dropped; a schema others may write); default: a process warning. */
  readonly warn?: (message: string) => void;
}

/** A line waiting to be written: its row's columns. */
interface Row {
  readonly callId: string;
  readonly at: string | null;
  readonly host: string;
  readonly pid: number | null;
  readonly seq: number;
  readonly line: string;
}

const RETRY_FIRST_MS = 50;
const RETRY_MOST_MS = 5_000;

/**
 * A journal in PostgreSQL, a `CallObserver` as `CallJournal` is: one row per raw call
 * (`<schema>.journal`: its `call_id`, `at`, `host`, `pid`, `seq` and its journal line as
 * `CallJournal` writes it), written in batches off the call path by one multi-row INSERT each,
 * `ON CONFLICT (call_id) DO NOTHING`. The call path only builds the line and buffers it: it never
 * waits and never throws. A batch that fails (the server down or restarting) stays first in the
 * buffer and is retried (50 ms, doubling to 5 s); a batch whose acknowledgement was lost is
 * written again and adds nothing, as each call's `callId` is its key. Every line is either
 * written (`lines`: acknowledged by the server) or dropped and counted (`dropped`: the buffer
 * was full, or `close()` or the process's end came before it could be written), and dropped
 * lines are told in one warning. Many processes on many hosts write one table: a fleet's journal.
 */
export class PostgresJournal implements CallObserver {
  /** The schema of the table. */
  readonly schema: string;
  readonly #label: string;
  readonly #pool: PgPool;
  readonly #ownPool: boolean;
  readonly #endpointJson: string;
  readonly #maxBuffered: number;
  readonly #batchLines: number;
  readonly #flushIntervalMs: number;
  readonly #closeTimeoutMs: number;
  readonly #exitHooks: boolean;
  readonly #onError: (error: unknown) => void;
  readonly #warn: (message: string) => void;
  readonly #insert: string;
  #buffer: Row[] = [];
  #seq = 0;
  #lines = 0;
  #dropped = 0;
  #firstError: unknown = null;
  #timer: NodeJS.Timeout | null = null;
  #retryMs = 0;
  #writing: Promise<void> | null = null;
  #closed = false;
  #checked = false;
  #ended = false;

  constructor(options: PostgresJournalOptions = {}) {
    this.schema = journalSchema(options.schema);
    if ((options.url === undefined) === (options.pool === undefined))
      throw new TypeError('PostgresJournal: give one of url (a postgres:// address) and pool (a pg.Pool)');
    if (options.pool !== undefined) {
      if (!isPgPool(options.pool)) throw new TypeError('pool: expected a pg.Pool (with connect() and end())');
      this.#pool = options.pool;
      guardPool(this.#pool);
      this.#ownPool = false;
      this.#label = `PostgreSQL (the pool given), schema "${this.schema}"`;
    } else {
      if (typeof options.url !== 'string' || !/^postgres(ql)?:\/\//i.test(options.url))
        throw new TypeError('url: expected a postgres:// or postgresql:// address');
      this.#label = `${pgLabel(options.url)} schema "${this.schema}"`;
      this.#pool = pgPool(options.url, 'PostgresJournal');
      this.#ownPool = true;
    }
    this.#endpointJson = JSON.stringify(journalEndpoint(options.endpoint));
    this.#maxBuffered = whole(options.maxBufferedLines, 'maxBufferedLines') ?? 10_000;
    this.#batchLines = whole(options.batchLines, 'batchLines') ?? 500;
    this.#flushIntervalMs = whole(options.flushIntervalMs, 'flushIntervalMs') ?? 100;
    this.#closeTimeoutMs = whole(options.closeTimeoutMs, 'closeTimeoutMs') ?? 10_000;
    this.#exitHooks = options.exitHooks !== false;
    this.#onError = options.onError ?? (() => {});
    this.#warn = options.warn ?? ((message) => process.emitWarning(message, 'JournalWarning'));
    this.#insert = insertSql(this.schema);
    if (this.#exitHooks) registerExitFlush(this);
  }

  /** Lines written: acknowledged by the server (or already there from an earlier try of theirs). */
  get lines(): number {
    return this.#lines;
  }

  /** Lines that will never be written: the buffer was full, or the journal closed (or the process ended) first. */
  get dropped(): number {
    return this.#dropped;
  }

  /** Lines waiting to be written. */
  get buffered(): number {
    return this.#buffer.length;
  }

  /**
   * Creates the schema and the table when missing (concurrent calls are serialized by an
   * advisory lock), every name resolved in PostgreSQL's catalog whatever the session's
   * search_path. Refuses (rejects) a schema another role owns, may create objects in, or whose
   * table it owns or may add triggers to.
   */
  async migrate(): Promise<void> {
    await this.#transaction(async (query) => {
      await this.#refuseUntrusted(query);
      for (const sql of migrateSql(this.schema)) await query(sql);
      await this.#refuseUntrusted(query);
    });
    this.#checked = true;
  }

  /** Buffers one line for the raw call. Never throws, never waits. */
  afterCall(record: TelemetryRecord): void {
    try {
      this.#seq += 1;
      if (this.#closed || this.#buffer.length >= this.#maxBuffered) {
        this.#drop(1, new Error(this.#closed ? 'the journal was closed' : 'the buffer was full'));
        return;
      }
      const callId = typeof record.callId === 'string' && record.callId !== '' ? record.callId : randomUUID();
      const withId = record.callId === callId ? record : { ...record, callId };
      const line = journalLineText(withId, this.#endpointJson, undefined, this.#seq);
      const at = typeof record.at === 'string' && Number.isFinite(Date.parse(record.at)) ? record.at : null;
      this.#buffer.push({
        callId: withoutNul(callId),
        at,
        host: withoutNul(typeof record.host === 'string' ? record.host : processHost()),
        pid: typeof record.pid === 'number' && Number.isInteger(record.pid) ? record.pid : process.pid,
        seq: this.#seq,
        line,
      });
      if (this.#buffer.length >= this.#batchLines) this.#kick();
      else this.#schedule(this.#flushIntervalMs);
    } catch (error) {
      this.#drop(1, error);
    }
  }

  /**
   * Writes what is buffered now; resolves once every line buffered before the call is written,
   * or once a try failed (those lines stay buffered and are retried). Never rejects.
   */
  async flush(): Promise<void> {
    const target = this.#buffer.length;
    if (target === 0) return this.#writing ?? undefined;
    await this.#writeAll();
  }

  /** Nothing can be written synchronously: the exit hook counts what is left (see `closeAtExit`). */
  flushSync(): void {}

  /**
   * Stops taking lines (later ones are dropped and counted), keeps trying to write what is
   * buffered for up to `closeTimeoutMs`, counts what is left as dropped (and says so in one
   * warning), and ends the pool it made. Never rejects.
   */
  async close(): Promise<void> {
    if (this.#ended) return;
    this.#closed = true;
    const deadline = Date.now() + this.#closeTimeoutMs;
    while (this.#buffer.length > 0 && Date.now() < deadline) {
      await this.#writeAll();
      if (this.#buffer.length > 0)
        await new Promise((resolve) =>
          setTimeout(resolve, Math.min(this.#retryMs || RETRY_FIRST_MS, Math.max(0, deadline - Date.now()))),
        );
    }
    this.#clearTimer();
    this.#end();
    if (this.#ownPool) await this.#pool.end().catch(() => undefined);
  }

  /** The process is ending: what is still buffered is dropped, and said. */
  closeAtExit(): void {
    this.#closed = true;
    this.#end();
  }

  #end(): void {
    if (this.#ended) return;
    this.#ended = true;
    if (this.#exitHooks) unregisterExitFlush(this);
    if (this.#buffer.length > 0) {
      const left = this.#buffer.length;
      this.#buffer = [];
      this.#dropped += left;
      this.#firstError ??= new Error('the journal closed before they could be written');
    }
    if (this.#dropped > 0)
      this.#warn(
        `journal ${this.#label}: ${this.#dropped} ${this.#dropped === 1 ? 'line was' : 'lines were'} not written and ${this.#dropped === 1 ? 'is' : 'are'} missing from it (first: ${describeError(this.#firstError)}); ${this.#lines} written`,
      );
  }

  #drop(count: number, error: unknown): void {
    this.#dropped += count;
    if (this.#firstError === null) {
      this.#firstError = error;
      // Said at once the first time (a full buffer can last); the count is said again at close.
      if (!this.#closed)
        this.#warn(
          `journal ${this.#label}: a line was dropped (${describeError(error)}); the count is told at close`,
        );
    }
  }

  #schedule(delayMs: number): void {
    if (this.#timer !== null || this.#writing !== null) return;
    this.#timer = setTimeout(() => {
      this.#timer = null;
      this.#kick();
    }, delayMs);
    this.#timer.unref();
  }

  #clearTimer(): void {
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#timer = null;
  }

  #kick(): void {
    this.#clearTimer();
    void this.#writeAll();
  }

  /** Writes batches until the buffer is empty or a batch fails (then a retry is scheduled). One at a time. */
  #writeAll(): Promise<void> {
    this.#writing ??= (async () => {
      try {
        while (this.#buffer.length > 0) {
          const batch = this.#buffer.slice(0, this.#batchLines);
          try {
            await this.#write(batch);
          } catch (error) {
            this.#retryMs = Math.min(RETRY_MOST_MS, this.#retryMs === 0 ? RETRY_FIRST_MS : this.#retryMs * 2);
            safely(this.#onError, error);
            return;
          }
          this.#retryMs = 0;
          this.#buffer = this.#buffer.slice(batch.length);
          this.#lines += batch.length;
        }
      } finally {
        this.#writing = null;
        if (this.#buffer.length > 0 && !this.#ended) this.#schedule(this.#retryMs || this.#flushIntervalMs);
      }
    })();
    return this.#writing;
  }

  async #write(batch: readonly Row[]): Promise<void> {
    await this.#transaction(async (query) => {
      if (!this.#checked) {
        // Written without migrate(): the schema's owners are checked once, and a warning says who else could write.
        this.#checked = true;
        const refusal = untrustedText(this.schema, await query(UNTRUSTED_ROLES_SQL, [this.schema]));
        if (refusal !== null) this.#warn(`journal ${this.#label}: ${refusal}`);
      }
      await query(this.#insert, [
        batch.map((row) => row.callId),
        batch.map((row) => row.at),
        batch.map((row) => row.host),
        batch.map((row) => row.pid),
        batch.map((row) => row.seq),
        batch.map((row) => row.line),
      ]);
    });
  }

  async #refuseUntrusted(
    query: (text: string, values?: readonly unknown[]) => Promise<Record<string, unknown>[]>,
  ): Promise<void> {
    const refusal = untrustedText(this.schema, await query(UNTRUSTED_ROLES_SQL, [this.schema]));
    if (refusal !== null) throw new Error(`PostgresJournal at ${this.#label}: ${refusal}`);
  }

  /** Runs `body` in one transaction on a client of the pool, the search_path pinned to the catalog. */
  async #transaction(
    body: (
      query: (text: string, values?: readonly unknown[]) => Promise<Record<string, unknown>[]>,
    ) => Promise<void>,
  ): Promise<void> {
    const client = await this.#pool.connect();
    let broken: Error | undefined;
    // A checked-out client's connection can fail between queries (the server killed): the query fails, not the process.
    const onError = (error: Error) => {
      broken ??= error;
    };
    client.on('error', onError);
    try {
      const query = async (text: string, values?: readonly unknown[]) =>
        (await client.query(text, values)).rows;
      await query('BEGIN');
      try {
        await query(PIN_SEARCH_PATH);
        await body(query);
        await query('COMMIT');
      } catch (error) {
        await query('ROLLBACK').catch((rollback: unknown) => {
          broken = rollback instanceof Error ? rollback : new Error(String(rollback));
        });
        throw error;
      }
    } catch (error) {
      broken ??= error instanceof Error ? error : new Error(String(error));
      throw error;
    } finally {
      // A client whose query failed may be on a dead connection: it leaves the pool.
      client.removeListener('error', onError);
      client.release(broken);
    }
  }
}

function whole(value: number | undefined, name: string): number | undefined {
  if (value === undefined) return undefined;
  if (!Number.isInteger(value) || value < 1)
    throw new RangeError(`${name}: expected a whole number of at least 1, got ${String(value)}`);
  return value;
}

function withoutNul(text: string): string {
  return text.includes('\u0000') ? text.replaceAll('\u0000', '\uFFFD') : text;
}

function safely(callback: (error: unknown) => void, error: unknown): void {
  try {
    callback(error);
  } catch {
    // A caller's handler that throws must not stop the retries.
  }
}
