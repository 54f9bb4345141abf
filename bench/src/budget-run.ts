// Budget overhead and estimate quality (issue 12), printed as markdown; not part
// of the tests. Needs the Debian package redis-server on the PATH.
//
// Usage (from the root): pnpm --filter @switchboard/bench bench:budget [--quick]
import { execFileSync, fork } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { type ChatMessage, OpenAITransport } from '@switchboard/adapter';
import { createBudget, MemoryBudgetStore, worstCaseCostUsd } from '@switchboard/budget';
import { startEmulator } from '@switchboard/emulator';
import { costOf, priceOf } from '@switchboard/prices';
// The redis-server the budget tests start, reused rather than copied.
import { startRedis } from '../../packages/budget/test/support/start-redis.js';
import { BUDGET_INFO, BUDGET_PRICES, BUDGET_RECORD } from './budget-settings.js';
import { machineInfo } from './machine.js';
import { median } from './measure.js';
import { BENCH_API_KEY, BENCH_MODEL } from './settings.js';

const { values } = parseArgs({
  args: process.argv.slice(2).filter((argument) => argument !== '--'),
  options: { quick: { type: 'boolean', default: false } },
});
const quick = values.quick === true;
const MEMORY_CALLS = quick ? 20_000 : 200_000;
const WORKERS = 8;
const LANES = 64;
/** The 8 x 16 row: reserve + settle back to back in each lane, nothing held between. */
const NARROW_LANES = 16;
const REDIS_CALLS_PER_WORKER = quick ? 640 : 2_560;
/** Each call holds its reservation this long, like a short chat call, so 8 x 64 in flight is a rate Redis can serve. */
const CALL_MS = 50;
const ESTIMATE_CALLS = quick ? 60 : 300;

function percentile(values: readonly number[], share: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(share * sorted.length))] ?? Number.NaN;
}

/** Sequential reserve + settle on the in-memory store: wall and CPU µs per call, median of 5 rounds. */
async function memoryRow(): Promise<{ wallMicros: number; cpuMicros: number }> {
  const budget = createBudget({
    store: new MemoryBudgetStore(),
    scope: { name: 'bench-memory', limitUsd: 1_000_000 },
    maxPricesOf: () => BUDGET_PRICES,
  });
  const rounds: { wall: number; cpu: number }[] = [];
  for (let round = 0; round < 6; round++) {
    const cpuBefore = process.cpuUsage();
    const started = performance.now();
    for (let call = 0; call < MEMORY_CALLS; call++) {
      const handle = await budget.beforeAttempt(BUDGET_INFO);
      await handle.end({ record: BUDGET_RECORD, error: null, mayHaveBeenBilled: true });
    }
    const wall = ((performance.now() - started) * 1000) / MEMORY_CALLS;
    const cpu = process.cpuUsage(cpuBefore);
    // The first round warms up.
    if (round > 0) rounds.push({ wall, cpu: (cpu.user + cpu.system) / MEMORY_CALLS });
  }
  await budget.close();
  return { wallMicros: median(rounds.map((r) => r.wall)), cpuMicros: median(rounds.map((r) => r.cpu)) };
}

interface RedisFigures {
  readonly workers: number;
  readonly lanes: number;
  readonly calls: number;
  readonly reserveP50: number;
  readonly reserveP99: number;
  readonly settleP50: number;
  readonly settleP99: number;
  /** Reserve + settle of one call. */
  readonly bothP50: number;
  readonly bothP99: number;
  readonly callsPerSecond: number;
}

/** Reserve + settle on Redis over loopback from `workers` processes with `lanes` calls each in flight. */
async function redisRow(
  url: string,
  workers: number,
  lanes: number,
  calls: number,
  callMs: number,
): Promise<RedisFigures> {
  const workerPath = fileURLToPath(new URL('./budget-bench-worker.ts', import.meta.url));
  const children = Array.from({ length: workers }, () =>
    fork(workerPath, [url, String(lanes), String(calls), String(callMs)], { execArgv: ['--import', 'tsx'] }),
  );
  await Promise.all(
    children.map((child) => new Promise<void>((resolve) => child.once('message', () => resolve()))),
  );
  const results = children.map(
    (child) =>
      new Promise<{ reserveMs: number[]; settleMs: number[]; bothMs: number[]; wallMs: number }>((resolve) =>
        child.once('message', (message) => resolve(message as never)),
      ),
  );
  for (const child of children) child.send({ type: 'go' });
  const done = await Promise.all(results);
  const reserve = done.flatMap((result) => result.reserveMs);
  const settle = done.flatMap((result) => result.settleMs);
  const both = done.flatMap((result) => result.bothMs);
  const wallMs = Math.max(...done.map((result) => result.wallMs));
  return {
    workers,
    lanes,
    calls: reserve.length,
    reserveP50: percentile(reserve, 0.5),
    reserveP99: percentile(reserve, 0.99),
    settleP50: percentile(settle, 0.5),
    settleP99: percentile(settle, 0.99),
    bothP50: percentile(both, 0.5),
    bothP99: percentile(both, 0.99),
    callsPerSecond: (reserve.length / wallMs) * 1000,
  };
}

/** Worst-case reservations against the actual costs of calls to the emulator, prompts of varied length. */
async function estimateRow(): Promise<{
  calls: number;
  totalRatio: number;
  medianRatio: number;
  minRatio: number;
  maxRatio: number;
}> {
  const emulator = await startEmulator({ key: BENCH_API_KEY });
  const transport = new OpenAITransport({ apiKey: BENCH_API_KEY, baseUrl: emulator.url, maxAttempts: 1 });
  const pricing = {
    maxPricesOf: (model: string) => priceOf(model),
    maxOutputTokensOf: () => null,
    maxCostUsdOf: () => null,
  };
  const system = 'You review build logs. Answer with the failing step and the reason, in one paragraph.';
  const ratios: number[] = [];
  let worst = 0;
  let actual = 0;
  try {
    for (let call = 0; call < ESTIMATE_CALLS; call++) {
      const log = 'step failed: exit code 1; '.repeat(1 + (call % 40) * 5);
      const messages = [
        { role: 'system', content: system },
        { role: 'user', content: `Log ${call}: ${log}` },
      ] satisfies ChatMessage[];
      const maxTokens = 256;
      const info = {
        model: BENCH_MODEL,
        attempt: 1,
        role: null,
        messages,
        tools: undefined,
        maxTokens,
        signal: undefined,
      };
      const reserved = worstCaseCostUsd(info, pricing, 'bench');
      const reply = (await transport.completeChatRaw({
        model: BENCH_MODEL,
        messages,
        tools: undefined,
        timeoutSeconds: 30,
        extraBody: { max_tokens: maxTokens },
      })) as { usage?: unknown };
      const cost = costOf(priceOf(BENCH_MODEL), reply.usage) ?? 0;
      worst += reserved;
      actual += cost;
      ratios.push(reserved / cost);
    }
  } finally {
    await emulator.close();
  }
  return {
    calls: ESTIMATE_CALLS,
    totalRatio: worst / actual,
    medianRatio: median(ratios),
    minRatio: Math.min(...ratios),
    maxRatio: Math.max(...ratios),
  };
}

/** Redis's own mean time per script call (`INFO commandstats`), which no client-side queueing inflates. */
function serverScriptMicros(port: number): number | null {
  try {
    const stats = execFileSync('redis-cli', ['-p', String(port), 'info', 'commandstats'], {
      encoding: 'utf8',
    });
    return Number(/cmdstat_evalsha:calls=\d+,usec=\d+,usec_per_call=([\d.]+)/.exec(stats)?.[1] ?? Number.NaN);
  } catch {
    return null;
  }
}

const fixed = (value: number, digits = 1) => value.toFixed(digits);
const machine = machineInfo();
const load = loadavg()[0] ?? 0;
console.log(`machine: ${machine.cpu}, ${machine.cores} cores, Node ${machine.node}`);
const memory = await memoryRow();
const redis = await startRedis();
let scriptMicros: number | null = null;
let single: RedisFigures;
let shared: RedisFigures;
let narrow: RedisFigures;
let redisLoad = 0;
try {
  redisLoad = loadavg()[0] ?? 0;
  single = await redisRow(redis.url, 1, 1, REDIS_CALLS_PER_WORKER, 0);
  narrow = await redisRow(redis.url, WORKERS, NARROW_LANES, REDIS_CALLS_PER_WORKER, 0);
  shared = await redisRow(redis.url, WORKERS, LANES, REDIS_CALLS_PER_WORKER, CALL_MS);
  scriptMicros = serverScriptMicros(redis.port);
} finally {
  await redis.stop();
}
const estimate = await estimateRow();

const lines = [
  `### Budgets (issue 12)`,
  '',
  `Machine: ${machine.cpu}, ${machine.cores} cores, Node ${machine.node}; load average ${load.toFixed(1)} at the start, ${redisLoad.toFixed(1)} when the Redis rows started, ${(loadavg()[0] ?? 0).toFixed(1)} at the end`,
  '',
  '| row | figure | target | met |',
  '|---|---:|---|---|',
  `| reserve + settle, in memory, sequential (${MEMORY_CALLS.toLocaleString('en')} calls, median of 5 rounds) | ${fixed(memory.cpuMicros, 2)} µs CPU/call (${fixed(memory.wallMicros, 2)} µs wall) | < 5 µs CPU | ${memory.cpuMicros < 5 ? 'yes' : 'no'} |`,
  `| reserve on Redis, loopback, 1 process x 1 call, back to back | p50 ${fixed(single.reserveP50 * 1000, 0)} µs, p99 ${fixed(single.reserveP99 * 1000, 0)} µs | | |`,
  `| settle on Redis, loopback, 1 process x 1 call | p50 ${fixed(single.settleP50 * 1000, 0)} µs, p99 ${fixed(single.settleP99 * 1000, 0)} µs | | |`,
  `| reserve + settle on Redis, loopback, sequential (1 process x 1 call; one script call each, idempotent by lease id) | p50 ${fixed(single.bothP50 * 1000, 0)} µs, p99 ${fixed(single.bothP99 * 1000, 0)} µs | p50 <= 150 µs, p99 <= 1 ms | ${single.bothP50 * 1000 <= 150 && single.bothP99 <= 1 ? 'yes' : 'no'} |`,
  `| reserve + settle on Redis, loopback, ${WORKERS} processes x ${NARROW_LANES} concurrent, back to back (${narrow.calls.toLocaleString('en')} calls) | p50 ${fixed(narrow.bothP50 * 1000, 0)} µs, p99 ${fixed(narrow.bothP99 * 1000, 0)} µs; ${Math.round(narrow.callsPerSecond).toLocaleString('en')} calls/s | | |`,
  `| reserve on Redis, loopback, ${WORKERS} processes x ${LANES} calls in flight, each held ${CALL_MS} ms (${shared.calls.toLocaleString('en')} calls) | p50 ${fixed(shared.reserveP50 * 1000, 0)} µs, p99 ${fixed(shared.reserveP99 * 1000, 0)} µs | p99 < 1 ms | ${shared.reserveP99 < 1 ? 'yes' : 'no'} |`,
  `| settle on Redis, same load | p50 ${fixed(shared.settleP50 * 1000, 0)} µs, p99 ${fixed(shared.settleP99 * 1000, 0)} µs | p99 < 1 ms | ${shared.settleP99 < 1 ? 'yes' : 'no'} |`,
  `| Redis's own time per budget script (acquire, settle, renew; INFO commandstats) | ${scriptMicros === null ? 'n/a' : `${fixed(scriptMicros, 1)} µs`} | | |`,
  `| calls through the shared budget, same load | ${Math.round(shared.callsPerSecond).toLocaleString('en')} calls/s | | |`,
  `| estimate quality: worst-case reservations / actual cost (${estimate.calls} calls to the emulator, max_tokens 256) | ${fixed(estimate.totalRatio, 2)}x in total; per call median ${fixed(estimate.medianRatio, 2)}x, min ${fixed(estimate.minRatio, 2)}x, max ${fixed(estimate.maxRatio, 2)}x | min >= 1 | ${estimate.minRatio >= 1 ? 'yes' : 'no'} |`,
];
console.log(`\n${lines.join('\n')}`);
const folder = new URL('../results/', import.meta.url);
mkdirSync(folder, { recursive: true });
writeFileSync(
  new URL('budget.json', folder),
  `${JSON.stringify({ date: new Date().toISOString(), machine, load, redisLoad, quick, memory, single, narrow, shared, scriptMicros, estimate }, null, 2)}\n`,
);
console.log('wrote bench/results/budget.json');
