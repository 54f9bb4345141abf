import { createRequire } from 'node:module';

/** The part of a `pg` client the PostgreSQL journal uses. */
export interface PgClient {
  query(text: string, values?: readonly unknown[]): Promise<{ rows: Record<string, unknown>[] }>;
  release(error?: Error | boolean): void;
  on(event: 'error', listener: (error: Error) => void): unknown;
  removeListener(event: 'error', listener: (error: Error) => void): unknown;
}

/** The part of a `pg.Pool` the PostgreSQL journal uses: a caller's pool, or one made from a url. */
export interface PgPool {
  connect(): Promise<PgClient>;
  on(event: 'error', listener: (error: Error) => void): unknown;
  /** A new client, connected: told before the pool hands it out or keeps it idle. */
  on(event: 'connect', listener: (client: PgClient) => void): unknown;
  end(): Promise<void>;
}

let pg: { Pool: new (config: Record<string, unknown>) => PgPool } | undefined;

/**
 * A pool of `pg` (an optional peer dependency) for `url`, the module loaded the first time one is
 * made: importing this package never loads it. Errors of idle clients (the server restarted) are
 * left to the pool, which drops the client.
 */
export function pgPool(url: string, what: string): PgPool {
  if (pg === undefined) {
    try {
      pg = createRequire(import.meta.url)('pg') as typeof pg;
    } catch (error) {
      throw new Error(
        `${what} needs the \`pg\` package (an optional peer dependency of @switchboard/telemetry): npm install pg`,
        {
          cause: error,
        },
      );
    }
  }
  const pool = new (pg as NonNullable<typeof pg>).Pool({
    connectionString: url,
    max: 2,
    connectionTimeoutMillis: 10_000,
    query_timeout: 60_000,
  });
  guardPool(pool);
  return pool;
}

/**
 * Makes a connection's error (the server killed or restarted) reach the query in progress, never an
 * 'error' event with no listener that would end the process: the errors of idle clients, and of each
 * client from the moment it is connected (pg-pool stops listening as it hands a client out, and the
 * server's last words can arrive in the same read as the connection's first).
 */
export function guardPool(pool: PgPool): void {
  pool.on('error', () => undefined);
  pool.on('connect', (client) => client.on('error', () => undefined));
}

/** `postgres://host:port/database`: the address without its user, password or parameters, for messages. */
export function pgLabel(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.protocol}//${parsed.host}${parsed.pathname}`;
  } catch {
    return 'postgres://(an address that cannot be parsed)';
  }
}

/** Whether `value` has what a `pg.Pool` this journal uses has. */
export function isPgPool(value: unknown): value is PgPool {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as PgPool).connect === 'function' &&
    typeof (value as PgPool).end === 'function'
  );
}
