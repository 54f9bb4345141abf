// Reserve + settle (a budget's whole cost to one attempt: `beforeAttempt` then `end({ record })`) on each store,
// in one run on one machine: in memory, on Redis and on PostgreSQL, both on loopback and started here (the
// helpers of the budget tests). Sequential (1 process, one call after another) and 8 processes × 16 calls at a
// time, back to back. Needs redis-server and PostgreSQL (Debian's packages).
import { fork } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { startPostgres } from '../../packages/budget/test/support/start-postgres.js';
import { startRedis } from '../../packages/budget/test/support/start-redis.js';
import { machineInfo } from './machine.js';

const { values } = parseArgs({
  args: process.argv.slice(2).filter((argument) => argument !== '--'),
  options: { quick: { type: 'boolean', default: false } },
});
const quick = values.quick === true;
const SEQUENTIAL_CALLS = quick ? 300 : 2_000;
const WORKERS = 8;
const LANES = 16;
const CALLS_PER_WORKER = quick ? 160 : 640;
const workerPath = fileURLToPath(new URL('./budget-stores-worker.ts', import.meta.url));

function percentile(values: readonly number[], share: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(share * sorted.length))] ?? Number.NaN;
}

interface Row {
  readonly store: string;
  readonly shape: string;
  readonly calls: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly callsPerSecond: number;
  /** Calls refused because the store did not answer in time. */
  readonly refused: number;
}

async function row(store: string, url: string, workers: number, lanes: number, calls: number): Promise<Row> {
  const children = Array.from({ length: workers }, () =>
    fork(workerPath, [store, url, String(lanes), String(calls)], { execArgv: ['--import', 'tsx'] }),
  );
  await Promise.all(
    children.map((child) => new Promise<void>((resolve) => child.once('message', () => resolve()))),
  );
  const results = children.map(
    (child) =>
      new Promise<{ bothMs: number[]; wallMs: number; refused: number }>((resolve) =>
        child.once('message', (message) => resolve(message as never)),
      ),
  );
  for (const child of children) child.send({ type: 'go' });
  const done = await Promise.all(results);
  const both = done.flatMap((result) => result.bothMs);
  const wallMs = Math.max(...done.map((result) => result.wallMs));
  return {
    store,
    shape: workers === 1 && lanes === 1 ? 'sequential' : `${workers} processes × ${lanes} concurrent`,
    calls: both.length,
    p50Ms: percentile(both, 0.5),
    p99Ms: percentile(both, 0.99),
    callsPerSecond: (both.length / wallMs) * 1000,
    refused: done.reduce((sum, result) => sum + result.refused, 0),
  };
}

const loadAtStart = loadavg()[0] ?? 0;
const redis = await startRedis();
const postgres = await startPostgres();
const rows: Row[] = [];
try {
  for (const [store, url] of [
    ['memory', ''],
    ['redis', redis.url],
    ['postgres', postgres.url],
  ] as const) {
    rows.push(await row(store, url, 1, 1, SEQUENTIAL_CALLS));
    rows.push(await row(store, url, WORKERS, LANES, CALLS_PER_WORKER));
  }
} finally {
  await redis.stop();
  await postgres.stop();
}

const micros = (ms: number) => (ms < 1 ? `${Math.round(ms * 1000)} µs` : `${ms.toFixed(2)} ms`);
console.log('| store | shape | calls | reserve + settle p50 | p99 | calls/s | refused |');
console.log('|---|---|---:|---:|---:|---:|---:|');
for (const r of rows) {
  console.log(
    `| ${r.store} | ${r.shape} | ${r.calls} | ${micros(r.p50Ms)} | ${micros(r.p99Ms)} | ${Math.round(r.callsPerSecond).toLocaleString('en-US')} | ${r.refused} |`,
  );
}
const folder = new URL('../results/', import.meta.url);
mkdirSync(folder, { recursive: true });
writeFileSync(
  new URL('budget-stores.json', folder),
  `${JSON.stringify({ machine: machineInfo(), loadAtStart, quick, rows }, null, 2)}\n`,
);
