// What PostgreSQL's client backends were doing during a bench:ledger row: pg_stat_activity sampled every few
// milliseconds (each sample tallies every backend but the sampler's own: running on CPU, waiting for a lock, for
// the WAL's flush, or idle, waiting for its client), and what the server counted meanwhile (commits, rollbacks,
// deadlocks, WAL flushes). So a row that leaves the CPU idle says where its time went: on the server's row
// locks or disk, or in the workers, whose connections then sit idle.
import { connectPg, type PgClient } from './budget-dependencies.js';

const SAMPLE_EVERY_MS = 10;

const ACTIVITY = `SELECT state, wait_event_type, wait_event FROM pg_stat_activity
  WHERE backend_type = 'client backend' AND pid <> pg_backend_pid()`;
const COUNTERS = `SELECT sum(xact_commit)::bigint AS commits, sum(xact_rollback)::bigint AS rollbacks,
  sum(deadlocks)::bigint AS deadlocks, (SELECT wal_sync FROM pg_stat_wal)::bigint AS wal_syncs
  FROM pg_stat_database`;

/** One backend's state in a sample: `cpu` (active, no wait), `idle` (waiting for its client), or the wait's name. */
function stateOf(row: Record<string, unknown>): string {
  const state = String(row.state ?? '');
  if (state === 'idle') return 'idle (waiting for its client)';
  if (state === 'idle in transaction') return 'idle in a transaction';
  if (row.wait_event_type === null || row.wait_event_type === undefined) return 'on CPU';
  return `${String(row.wait_event_type)}:${String(row.wait_event)}`;
}

async function counters(client: PgClient): Promise<Record<string, number>> {
  const [row] = (await client.query(COUNTERS)).rows;
  return Object.fromEntries(Object.entries(row ?? {}).map(([name, value]) => [name, Number(value)]));
}

/**
 * Starts sampling the server at `url`; `stop()` ends it and answers the report: the share of backend samples in
 * each state (the largest first, those under 1 % left out) and the counters' growth.
 */
export async function serverWaits(url: string): Promise<{ stop(): Promise<string[]> }> {
  const client = await connectPg(url);
  const before = await counters(client);
  const tally = new Map<string, number>();
  let samples = 0;
  let stopping = false;
  const sampling = (async () => {
    while (!stopping) {
      for (const row of (await client.query(ACTIVITY)).rows) {
        const state = stateOf(row);
        tally.set(state, (tally.get(state) ?? 0) + 1);
      }
      samples += 1;
      await new Promise((resolve) => setTimeout(resolve, SAMPLE_EVERY_MS));
    }
  })();
  return {
    async stop() {
      stopping = true;
      await sampling;
      const after = await counters(client);
      await client.end();
      const total = [...tally.values()].reduce((sum, count) => sum + count, 0);
      const shares = [...tally.entries()]
        .sort((a, b) => b[1] - a[1])
        .filter(([, count]) => count / total >= 0.01)
        .map(([state, count]) => `${state} ${((count / total) * 100).toFixed(0)} %`);
      const grown = Object.keys(after)
        .map((name) => `${name} ${(after[name] ?? 0) - (before[name] ?? 0)}`)
        .join(', ');
      return [
        `backends, ${samples} samples of ${(total / Math.max(1, samples)).toFixed(0)} on average: ${shares.join(', ')}`,
        `the server counted meanwhile: ${grown}`,
      ];
    },
  };
}
