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
  end(): Promise<void>;
  readonly options?: {
    readonly host?: unknown;
    readonly port?: unknown;
    readonly database?: unknown;
    readonly max?: unknown;
  };
}

interface PgModule {
  Pool: new (config: Record<string, unknown>) => PgPool;
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
