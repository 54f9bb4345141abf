// pg and ioredis are the budget package's (optional) dependencies, not the bench's: loaded from there.
import { createRequire } from 'node:module';

export const requireFromBudget = createRequire(
  new URL('../../packages/budget/package.json', import.meta.url),
);

/** A connected pg client, as far as the bench uses one. */
export interface PgClient {
  query(sql: string): Promise<{ rows: Record<string, unknown>[] }>;
  end(): Promise<void>;
}

/** A client of the budget package's pg, connected to the server at `url`. */
export async function connectPg(url: string): Promise<PgClient> {
  const pg = requireFromBudget('pg') as {
    Client: new (options: { connectionString: string }) => PgClient & { connect(): Promise<void> };
  };
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  return client;
}
