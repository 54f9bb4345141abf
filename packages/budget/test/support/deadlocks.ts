import type pg from 'pg';

/** The deadlocks PostgreSQL detected in the client's database since its statistics began (pg_stat_database). */
export async function deadlocks(client: pg.Client): Promise<number> {
  const { rows } = await client.query(
    'SELECT deadlocks::int AS n FROM pg_stat_database WHERE datname = current_database()',
  );
  return Number(rows[0]?.n);
}
