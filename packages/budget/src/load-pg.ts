import { createRequire } from 'node:module';

/** The part of a `pg` client this package uses. */
export interface PgClient {
  query(
    text: string,
    values?: readonly unknown[],
  ): Promise<{ rows: Record<string, unknown>[]; rowCount: number | null }>;
  /** With a `query_timeout` of its own (pg's per-query option, over the client's). */
  query(config: {
    text: string;
    values?: readonly unknown[] | undefined;
    query_timeout?: number;
  }): Promise<{ rows: Record<string, unknown>[]; rowCount: number | null }>;
  release(error?: Error | boolean): void;
  on(event: 'error', listener: (error: Error) => void): unknown;
  removeListener(event: 'error', listener: (error: Error) => void): unknown;
}

/** The part of a `pg.Pool` this package uses: a caller's pool, or one built from a url. */
export interface PgPool {
  connect(): Promise<PgClient>;
  on(event: 'error', listener: (error: Error) => void): unknown;
  /** A new client, connected: told before the pool hands it out or keeps it idle. */
  on(event: 'connect', listener: (client: PgClient) => void): unknown;
  end(): Promise<void>;
  readonly options?: {
    readonly host?: unknown;
    readonly port?: unknown;
    readonly database?: unknown;
    readonly max?: unknown;
  };
}

/** A `pg.Client` class, as `pg.Pool` takes one (its `Client` option). */
export type PgClientClass = new (config: Record<string, unknown>) => object;

interface PgModule {
  Pool: new (config: Record<string, unknown>) => PgPool;
  Client: PgClientClass;
}

let loaded: PgModule | undefined;

/**
 * The `pg` module (an optional peer dependency), loaded the first time a PostgreSQL
 * store is made from a url: importing this package never loads it. Synchronous, as a
 * store is made in a constructor; `pg` is a CommonJS package, so `require` loads it
 * from either build.
 */
export function loadPg(): PgModule {
  if (loaded === undefined) {
    try {
      loaded = createRequire(import.meta.url)('pg') as PgModule;
    } catch (error) {
      throw new Error(
        'PostgresBudgetStore needs the `pg` package (an optional peer dependency of @switchboard/budget): npm install pg',
        { cause: error },
      );
    }
  }
  return loaded;
}

const guarded = new WeakSet<PgClient>();

/**
 * Makes an error of `client`'s connection (a server killed or restarted) something the query in
 * progress rejects with, never an 'error' event with no listener that would end the process. Once per
 * client, however often it is checked out.
 */
export function guardClient(client: PgClient): void {
  if (guarded.has(client)) return;
  guarded.add(client);
  client.on('error', () => {});
}

/**
 * Guards every client `pool` connects from the moment it is connected: pg-pool stops listening to a
 * client's errors as it hands it out, and the server's last words (a FATAL after the connection was
 * made, in the same read) can arrive before the caller's code runs; and the errors of its idle clients.
 */
export function guardPool(pool: PgPool): void {
  pool.on('error', () => {});
  pool.on('connect', guardClient);
}
