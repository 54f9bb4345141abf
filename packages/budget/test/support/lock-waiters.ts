import type pg from 'pg';

/** A backend waiting for a lock: its pid, and when its statement started. */
export interface LockWaiter {
  readonly pid: number;
  readonly startedAt: number;
}

/** The backends waiting for a lock in a statement whose text names `naming` (e.g. `budget_acquire`). */
export async function lockWaiters(client: pg.Client, naming: string): Promise<LockWaiter[]> {
  const { rows } = await client.query(
    "SELECT pid, query_start FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%' || $1 || '%'",
    [naming],
  );
  return rows.map((row: { pid: number; query_start: Date }) => ({
    pid: Number(row.pid),
    startedAt: row.query_start.getTime(),
  }));
}
