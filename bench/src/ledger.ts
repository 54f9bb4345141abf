// bench:ledger — the budget's ledger beside its store's own floor, in one run on one machine (issue 42's bench).
// N worker processes × C concurrent callers spend one budget tree (a root and a role) on memory, Redis and
// PostgreSQL (servers started here, stopped by PID), each row's reserve + settle pairs per second and the p50 of
// one pair; beside them, measured on the same servers in the same run: pgbench's one hot row (16 clients,
// durable commits), redis-benchmark's EVALSHA, and two EVALSHA through ioredis interleaved with the budget's
// sequential pairs in the same process. Ratios first. Needs redis-server, redis-tools and postgresql.
//
// --allotments adds, per store, the N × C row with `allotments` on (each process reserving from leased shares).
//
// Usage: pnpm bench:ledger [--quick] [--workers 16] [--callers 8] [--stores memory,redis,postgres] [--allotments]
//        [--pairs 6000] [--warm-up 4000]   (each worker's timed pairs in the fleet row, and its pairs before them)
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { startPostgres } from '../../packages/budget/test/support/start-postgres.js';
import { startRedis } from '../../packages/budget/test/support/start-redis.js';
import { type Row, row, warmUpPairs } from './budget-store-rows.js';
import { type Floor, pgbenchHotRow, redisBenchmarkEvalsha } from './ledger-floors.js';
import { serverCpu } from './ledger-server-cpu.js';
import { serverWaits } from './ledger-server-waits.js';
import { machineInfo } from './machine.js';

const { values } = parseArgs({
  args: process.argv.slice(2).filter((argument) => argument !== '--'),
  options: {
    quick: { type: 'boolean', default: false },
    workers: { type: 'string', default: '16' },
    callers: { type: 'string', default: '8' },
    stores: { type: 'string', default: 'memory,redis,postgres' },
    allotments: { type: 'boolean', default: false },
    pairs: { type: 'string' },
    'warm-up': { type: 'string' },
  },
});
function count(name: string, text: string): number {
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1 || value > 256) {
    throw new Error(`--${name}: expected a whole number from 1 to 256, got ${JSON.stringify(text)}`);
  }
  return value;
}
function pairCount(name: string, text: string | undefined, fallback: number): number {
  if (text === undefined) return fallback;
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1 || value > 1_000_000) {
    throw new Error(
      `--${name}: expected a whole number of pairs from 1 to 1,000,000, got ${JSON.stringify(text)}`,
    );
  }
  return value;
}
const STORES = ['memory', 'redis', 'postgres'] as const;
const stores = values.stores.split(',');
for (const store of stores) {
  if (!(STORES as readonly string[]).includes(store)) {
    throw new Error(`--stores: unknown store ${JSON.stringify(store)} (known: ${STORES.join(', ')})`);
  }
}
const workers = count('workers', values.workers);
const callers = count('callers', values.callers);
const quick = values.quick === true;
const SEQUENTIAL = quick ? 300 : 2_000;
// Each worker's pairs in the fleet row, and before them its warm-up pairs: a service's code is hot, so the row is
// timed once V8 has compiled the path (with 160 pairs after 30 of warm-up, most of a worker's CPU was the
// compiler's and its cold code's: 0.76 ms a pair, 0.42 ms after 1,000 of warm-up, 0.19 ms after 4,000). The
// sequential row warms up as long: after 30 pairs only, its p50 over 2,000 was 20-25 µs above the warm one's on
// Redis (114-117 µs against 91-95, the machine's round trips at 42-45 µs).
const PER_WORKER = pairCount('pairs', values.pairs, quick ? 40 : 6_000);
const WARM_UP = pairCount('warm-up', values['warm-up'], quick ? 30 : 4_000);
const PGBENCH_SECONDS = quick ? 3 : 10;
const ROLE = 'judge';

const loadText = () =>
  loadavg()
    .map((value) => value.toFixed(2))
    .join(' ');
console.log(`load average at the start: ${loadText()} (${cpus().length} CPUs)`);
const redis = stores.includes('redis') ? await startRedis() : null;
const postgres = stores.includes('postgres') ? await startPostgres() : null;
const rows: Row[] = [];
const floors: Record<string, Floor> = {};
/** PostgreSQL's CPU time per pair of the fleet row and per pgbench transaction, in ms. */
let serverCpuMs: { perPair: number; perTransaction: number } | null = null;
/** What PostgreSQL's backends did during the fleet row (ledger-server-waits.ts). */
let serverWaitLines: string[] = [];
try {
  for (const store of stores) {
    const url = store === 'redis' ? (redis?.url ?? '') : store === 'postgres' ? (postgres?.url ?? '') : '';
    // Redis's sequential row interleaves two trivial EVALSHA after each pair: the in-process floor.
    const sequentialKind = store === 'redis' ? 'redis-interleaved' : store;
    rows.push(await row(sequentialKind, url, 1, 1, SEQUENTIAL, ROLE, WARM_UP));
    console.error(`${store}, sequential: done`);
    const cpu = store === 'postgres' ? await serverCpu(url) : null;
    const fleetFrom = cpu?.() ?? 0;
    const waits = store === 'postgres' ? await serverWaits(url) : null;
    rows.push(await row(store, url, workers, callers, PER_WORKER, ROLE, WARM_UP));
    if (waits !== null) serverWaitLines = await waits.stop();
    console.error(`${store}, ${workers} × ${callers}: done`);
    // The fleet row's pairs and each worker's warm-up pairs (and its connections' start) ran on the server.
    const fleetCpuMs = (cpu?.() ?? 0) - fleetFrom;
    const fleetPairs = (rows.at(-1)?.calls ?? 0) + warmUpPairs(callers, WARM_UP) * workers;
    if (values.allotments === true) {
      rows.push(await row(`${store}+allotments`, url, workers, callers, PER_WORKER * 10, ROLE, WARM_UP));
      console.error(`${store} with allotments, ${workers} × ${callers}: done`);
    }
    if (store === 'postgres') {
      const floorFrom = cpu?.() ?? 0;
      floors.postgres = await pgbenchHotRow(url, 16, PGBENCH_SECONDS);
      const floorCpuMs = (cpu?.() ?? 0) - floorFrom;
      serverCpuMs = {
        perPair: fleetCpuMs / fleetPairs,
        perTransaction: floorCpuMs / (floors.postgres.count ?? Number.NaN),
      };
    }
    if (store === 'redis') floors.redis = await redisBenchmarkEvalsha(url, 16, quick ? 20_000 : 100_000);
  }
} finally {
  await redis?.stop();
  await postgres?.stop();
}

const micros = (ms: number) => (ms < 1 ? `${Math.round(ms * 1000)} µs` : `${ms.toFixed(2)} ms`);
const rate = (perSecond: number) => Math.round(perSecond).toLocaleString('en-US');
const find = (store: string, sequential: boolean) =>
  rows.find(
    (r) =>
      (r.store === store || r.store === `${store}-interleaved`) && (r.shape === 'sequential') === sequential,
  );

console.log("\nRatios (the issue's targets in brackets):");
const pgFleet = find('postgres', false);
if (pgFleet !== undefined && floors.postgres !== undefined) {
  console.log(
    `- PostgreSQL, ${pgFleet.shape}: ${(pgFleet.callsPerSecond / floors.postgres.perSecond).toFixed(2)}x pgbench's hot-row tps (≥ 0.5x): ${rate(pgFleet.callsPerSecond)} pairs/s against ${rate(floors.postgres.perSecond)} tps`,
  );
}
if (serverCpuMs !== null) {
  console.log(
    `- PostgreSQL's own CPU: ${serverCpuMs.perPair.toFixed(2)} ms per pair of the fleet row (its warm-up and connections included) against ${serverCpuMs.perTransaction.toFixed(3)} ms per pgbench transaction (${(serverCpuMs.perPair / serverCpuMs.perTransaction).toFixed(1)}x)`,
  );
  if (pgFleet !== undefined) {
    console.log(
      `- the ${workers} worker processes' own CPU: ${pgFleet.clientCpuMsPerPair.toFixed(2)} ms per pair (the server's and theirs share the machine's ${cpus().length} cores)`,
    );
  }
}
for (const line of serverWaitLines)
  console.log(`- PostgreSQL during the fleet row (its warm-up included): ${line}`);
const redisSequential = find('redis', true);
if (redisSequential?.floorP50Ms != null) {
  console.log(
    `- Redis, sequential pair p50: ${(redisSequential.p50Ms / redisSequential.floorP50Ms).toFixed(2)}x two ioredis EVALSHA interleaved (≤ 2x): ${micros(redisSequential.p50Ms)} against ${micros(redisSequential.floorP50Ms)}`,
  );
}
const redisFleet = find('redis', false);
if (redisFleet !== undefined && floors.redis !== undefined) {
  console.log(
    `- Redis, ${redisFleet.shape}: ${rate(redisFleet.callsPerSecond)} pairs/s; redis-benchmark EVALSHA ${rate(floors.redis.perSecond)}/s (p50 ${micros(floors.redis.latencyMs)}), so at most ${rate(floors.redis.perSecond / 2)} pairs/s at two round trips (${(redisFleet.callsPerSecond / (floors.redis.perSecond / 2)).toFixed(2)}x)`,
  );
}
for (const store of stores) {
  const shared = rows.find((r) => r.store === `${store}+allotments`);
  const direct = find(store, false);
  if (shared === undefined || direct === undefined) continue;
  const floor = floors[store];
  const againstFloor =
    floor === undefined
      ? ''
      : `, ${(shared.callsPerSecond / floor.perSecond).toFixed(2)}x its floor's ${rate(floor.perSecond)}/s`;
  console.log(
    `- ${store} with allotments, ${shared.shape}: ${rate(shared.callsPerSecond)} pairs/s, ${(shared.callsPerSecond / direct.callsPerSecond).toFixed(1)}x the default's ${rate(direct.callsPerSecond)}${againstFloor}`,
  );
}

console.log('\n| store | shape | pairs | pair p50 | p99 | pairs/s | refused | load (1 min, start → end) |');
console.log('|---|---|---:|---:|---:|---:|---:|---:|');
for (const r of rows) {
  console.log(
    `| ${r.store} | ${r.shape} | ${r.calls} | ${micros(r.p50Ms)} | ${micros(r.p99Ms)} | ${rate(r.callsPerSecond)} | ${r.refused} | ${r.load[0].toFixed(1)} → ${r.load[1].toFixed(1)} |`,
  );
}
for (const floor of Object.values(floors)) {
  console.log(`floor: ${floor.what}: ${rate(floor.perSecond)}/s, latency ${micros(floor.latencyMs)}`);
}
console.log(`load average at the end: ${loadText()}`);
const folder = new URL('../results/', import.meta.url);
mkdirSync(folder, { recursive: true });
writeFileSync(
  new URL('ledger.json', folder),
  `${JSON.stringify({ machine: machineInfo(), workers, callers, quick, rows, floors, serverCpuMs, serverWaitLines }, null, 2)}\n`,
);
