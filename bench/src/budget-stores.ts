// Reserve + settle (a budget's whole cost to one attempt: `beforeAttempt` then `end({ record })`) on each store,
// in one run on one machine: in memory, on Redis and on PostgreSQL, both on loopback and started here (the
// helpers of the budget tests). Sequential (1 process, one call after another) and 8 processes × 16 calls at a
// time, back to back. Needs redis-server and PostgreSQL (Debian's packages).
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { startPostgres } from '../../packages/budget/test/support/start-postgres.js';
import { startRedis } from '../../packages/budget/test/support/start-redis.js';
import { type Row, row } from './budget-store-rows.js';
import { machineInfo } from './machine.js';

const { values } = parseArgs({
  args: process.argv.slice(2).filter((argument) => argument !== '--'),
  options: {
    quick: { type: 'boolean', default: false },
    // Only these stores, comma-separated (memory, redis, redis-ping, postgres, postgres-settle-async); default all.
    stores: { type: 'string' },
    // Only the sequential rows.
    sequential: { type: 'boolean', default: false },
  },
});
const ALL_STORES = ['memory', 'redis', 'redis-ping', 'postgres', 'postgres-settle-async'] as const;
const chosen = values.stores === undefined ? [...ALL_STORES] : values.stores.split(',');
for (const store of chosen) {
  if (!(ALL_STORES as readonly string[]).includes(store))
    throw new Error(`--stores: unknown store ${store} (known: ${ALL_STORES.join(', ')})`);
}
const quick = values.quick === true;
const SEQUENTIAL_CALLS = quick ? 300 : 2_000;
const WORKERS = 8;
const LANES = 16;
const CALLS_PER_WORKER = quick ? 160 : 640;
const loadAtStart = loadavg()[0] ?? 0;
console.log(
  `load average at the start: ${loadavg()
    .map((value) => value.toFixed(2))
    .join(' ')} (${cpus().length} CPUs)`,
);
const redis = chosen.some((store) => store.startsWith('redis')) ? await startRedis() : null;
const postgres = chosen.some((store) => store.startsWith('postgres')) ? await startPostgres() : null;
const rows: Row[] = [];
try {
  for (const store of chosen) {
    const url = store.startsWith('redis') ? redis?.url : store.startsWith('postgres') ? postgres?.url : '';
    const shapes = [
      [1, 1, SEQUENTIAL_CALLS],
      [WORKERS, LANES, CALLS_PER_WORKER],
    ] as const;
    for (const [workers, lanes, calls] of values.sequential ? shapes.slice(0, 1) : shapes) {
      rows.push(await row(store, url ?? '', workers, lanes, calls));
      console.error(`${store}, ${workers} × ${lanes}: done`);
    }
  }
} finally {
  await redis?.stop();
  await postgres?.stop();
}

// redis-ping is no store: two PINGs per row entry, the floor of reserve + settle's two round trips.
const shown = (store: string) => (store === 'redis-ping' ? 'redis: 2 PINGs (floor)' : store);
const micros = (ms: number) => (ms < 1 ? `${Math.round(ms * 1000)} µs` : `${ms.toFixed(2)} ms`);
console.log(
  '| store | shape | calls | reserve + settle p50 | p99 | calls/s | refused | load (1 min, start → end) |',
);
console.log('|---|---|---:|---:|---:|---:|---:|---:|');
for (const r of rows) {
  console.log(
    `| ${shown(r.store)} | ${r.shape} | ${r.calls} | ${micros(r.p50Ms)} | ${micros(r.p99Ms)} | ${Math.round(r.callsPerSecond).toLocaleString('en-US')} | ${r.refused} | ${r.load[0].toFixed(1)} → ${r.load[1].toFixed(1)} |`,
  );
}
console.log(
  `load average at the end: ${loadavg()
    .map((value) => value.toFixed(2))
    .join(' ')}`,
);
const folder = new URL('../results/', import.meta.url);
mkdirSync(folder, { recursive: true });
writeFileSync(
  new URL('budget-stores.json', folder),
  `${JSON.stringify({ machine: machineInfo(), loadAtStart, quick, rows }, null, 2)}\n`,
);
