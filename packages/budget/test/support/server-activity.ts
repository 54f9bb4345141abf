import { Redis } from 'ioredis';
import pg from 'pg';

/** How long a look at a server may take: it is made when something already hangs. */
const LOOK_MS = 5_000;
/** The busy backends shown, the oldest transactions first: a failure's message stays readable. */
const BUSY_SHOWN = 20;

/**
 * What a server is doing, in lines for a failure's message: on PostgreSQL each backend but this one (its
 * state, what it waits on, since when, its statement), on Redis its clients and the slow log. Never throws:
 * a server that does not answer in time is said so.
 */
export async function serverActivity(kind: 'redis' | 'postgres', url: string): Promise<string> {
  try {
    return await Promise.race([
      kind === 'postgres' ? postgresActivity(url) : redisActivity(url),
      new Promise<never>((_, reject) =>
        setTimeout(() => reject(new Error(`no answer within ${LOOK_MS} ms`)), LOOK_MS).unref(),
      ),
    ]);
  } catch (error) {
    return `${kind}: could not look: ${error instanceof Error ? error.message : String(error)}`;
  }
}

async function postgresActivity(url: string): Promise<string> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: LOOK_MS });
  client.on('error', () => {});
  try {
    await client.connect();
    const { rows } = await client.query(
      `SELECT pid, state, wait_event_type, wait_event, backend_type,
         round(extract(epoch FROM now() - xact_start) * 1000) AS xact_ms,
         round(extract(epoch FROM now() - query_start) * 1000) AS query_ms,
         left(regexp_replace(query, '\\s+', ' ', 'g'), 120) AS query,
         pg_blocking_pids(pid) AS blocked_by
       FROM pg_stat_activity WHERE pid <> pg_backend_pid() ORDER BY state, xact_start NULLS LAST`,
    );
    const states = new Map<string, number>();
    for (const row of rows) states.set(String(row.state), (states.get(String(row.state)) ?? 0) + 1);
    const busy = rows.filter((row) => row.state !== 'idle' && row.backend_type === 'client backend');
    return [
      `postgres: ${rows.length} backends (${[...states].map(([state, count]) => `${state} ${count}`).join(', ')}), the longest busy:`,
      ...busy
        .slice(0, BUSY_SHOWN)
        .map(
          (row) =>
            `  pid ${row.pid} ${row.state} wait ${row.wait_event_type ?? '-'}/${row.wait_event ?? '-'} xact ${row.xact_ms ?? '-'} ms query ${row.query_ms ?? '-'} ms blocked by [${row.blocked_by}]: ${row.query}`,
        ),
    ].join('\n');
  } finally {
    await client.end().catch(() => {});
  }
}

async function redisActivity(url: string): Promise<string> {
  const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, enableOfflineQueue: false });
  redis.on('error', () => {});
  try {
    await redis.connect();
    const clients = String(await redis.call('CLIENT', 'LIST'))
      .trim()
      .split('\n');
    // Counted by the command each ran last and whether it is idle (a client blocked or busy shows here).
    const counts = new Map<string, number>();
    for (const line of clients) {
      const field = (name: string) => new RegExp(`\\b${name}=(\\S*)`).exec(line)?.[1] ?? '?';
      const key = `${field('cmd')}, idle ${Number(field('idle')) > 0 ? 'over 0' : '0'} s, flags ${field('flags')}`;
      counts.set(key, (counts.get(key) ?? 0) + 1);
    }
    // The slowest recent commands: their name and how long they ran, in microseconds.
    const slow = ((await redis.call('SLOWLOG', 'GET', '5')) as [number, number, number, string[]][]).map(
      ([, , micros, argv]) => `${argv[0]} ${micros} µs`,
    );
    return [
      `redis: ${clients.length} clients`,
      ...[...counts].map(([key, count]) => `  ${count} × ${key}`),
      `slow log: ${slow.join(', ') || 'empty'}`,
    ].join('\n');
  } finally {
    redis.disconnect();
  }
}
