import { type ChildProcess, fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { type Emulator, type FaultPlan, startEmulator } from '@switchboard/emulator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBudget } from '../../src/budget.js';
import { RedisBudgetStore } from '../../src/redis-store.js';
import type { WorkerReport, WorkerSettings } from '../support/budget-worker.js';
import { type InFlightProxy, startInFlightProxy } from '../support/in-flight-proxy.js';
import { startRedis, type TestRedis } from '../support/start-redis.js';

const WORKERS = 8;
const CONCURRENCY = 16;
const CALLS_PER_WORKER = 48;
const MAX_IN_FLIGHT = 24;
const LIMIT_USD = 0.015;
// Well above the event-loop stalls of 8 processes starting on 2 shared cores.
const LEASE_TTL_MS = 5000;
const KILLED = WORKERS - 1;
// The victim starts alone; once it was granted this many leases it holds every lease from then on,
// reports them over IPC and waits. The parent sees them in Redis, starts the others and kills it:
// it provably dies holding them, however slow the machine.
const KILLED_AFTER_GRANTS = 3;
const API_KEY = 'sk-load-test';
const PREFIX = 'load:';
const packageRoot = fileURLToPath(new URL('../../', import.meta.url));
const workerPath = fileURLToPath(new URL('../support/budget-worker.ts', import.meta.url));

// The first requests all answer slowly, so calls pile up towards the in-flight cap at the start: the
// liveness check (more calls at once than workers) does not hang on where the seeded slow replies land.
// Without it the peak was 15 to 22 of 24, and once 8; with it, 14 to 24 over 15 runs on Node 20 and
// 24 (on 2 shared cores, how fast 8 workers get their first grants varies).
const SLOW_START_REQUESTS = 48;
const SLOW_START_MS = 1000;

/**
 * The first {@link SLOW_START_REQUESTS} replies slow; then 429s, 503s, resets and slow replies on a
 * seeded ~25% of request numbers, each rule on its own numbers.
 */
function faultPlan(): FaultPlan {
  let seed = 12;
  const random = () => {
    seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
    return seed / 2_147_483_648;
  };
  const effects = [
    { share: 0.08, rule: { status: 429, retryAfterMs: 10 } },
    { share: 0.04, rule: { status: 503 } },
    { share: 0.03, rule: { reset: true } },
    { share: 0.05, rule: { delayMs: 150 } },
    { share: 0.05, rule: { delayMs: 300 } },
  ];
  const numbers = effects.map(() => [] as number[]);
  for (let number = SLOW_START_REQUESTS + 1; number <= 4000; number++) {
    let pick = random();
    for (const [index, effect] of effects.entries()) {
      if (pick < effect.share) {
        numbers[index]?.push(number);
        break;
      }
      pick -= effect.share;
    }
  }
  const slowStart = Array.from({ length: SLOW_START_REQUESTS }, (_, index) => index + 1);
  return [
    { delayMs: SLOW_START_MS, requests: slowStart },
    ...effects.map((effect, index) => ({ ...effect.rule, requests: numbers[index] ?? [] })),
  ];
}

describe('a budget on Redis shared by 8 worker processes x 16 calls at a time, under faults', () => {
  let redis: TestRedis;
  let emulator: Emulator;
  let proxy: InFlightProxy;
  let store: RedisBudgetStore;

  beforeAll(async () => {
    redis = await startRedis();
    emulator = await startEmulator({ key: API_KEY, faults: faultPlan() });
    proxy = await startInFlightProxy(emulator.url);
    store = new RedisBudgetStore({ url: redis.url, prefix: PREFIX });
  }, 60_000);

  afterAll(async () => {
    await store?.close();
    await proxy?.close();
    await emulator?.close();
    await redis?.stop();
  }, 60_000);

  it("never overshoots, settles every reservation, matches the records exactly and caps calls in flight; a killed worker's leases count at their worst case and free their slots within the TTL", async () => {
    const root = { name: 'load-run', limitUsd: LIMIT_USD, maxInFlight: MAX_IN_FLIGHT };
    const observer = createBudget({ store, scope: root, onWarning: () => {} });
    const scopeOf = (index: number) => observer.child({ name: `worker-${index}` });

    const reports = new Map<number, Extract<WorkerReport, { type: 'done' }>>();
    let killedAt: number | null = null;
    const children: ChildProcess[] = [];
    let ready = 0;
    let allReady: () => void = () => {};
    let notReady: (error: Error) => void = () => {};
    const everyoneReady = new Promise<void>((resolve, reject) => {
      allReady = resolve;
      notReady = reject;
    });
    everyoneReady.catch(() => {});
    let holding: (held: number) => void = () => {};
    const victimHolds = new Promise<number>((resolve) => {
      holding = resolve;
    });
    const finished = Array.from({ length: WORKERS }, (_, index) => {
      const settings: WorkerSettings = {
        index,
        redisUrl: redis.url,
        baseUrl: proxy.url,
        apiKey: API_KEY,
        prefix: PREFIX,
        root,
        calls: CALLS_PER_WORKER,
        concurrency: CONCURRENCY,
        leaseTtlMs: LEASE_TTL_MS,
        maxTokens: 64,
        // Generous: on a loaded machine a worker's event loop can stall for seconds.
        commandTimeoutMs: 15_000,
        fallbackShare: null,
        dieAfterGrants: null,
        holdAfterGrants: index === KILLED ? KILLED_AFTER_GRANTS : null,
      };
      const child = fork(workerPath, [JSON.stringify(settings)], {
        cwd: packageRoot,
        execArgv: ['--import', 'tsx'],
        stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      });
      children.push(child);
      child.on('message', (report: WorkerReport) => {
        if (report.type === 'done') reports.set(index, report);
        if (report.type === 'holding' && index === KILLED) holding(report.held);
        if (report.type === 'ready') {
          ready += 1;
          if (ready === WORKERS) allReady();
        }
      });
      return new Promise<{ code: number | null; signal: string | null }>((resolve) =>
        child.on('exit', (code, signal) => {
          if (index === KILLED) killedAt = performance.now();
          // A worker that could not start (its output says why) fails the test now, not at its timeout.
          if (ready < WORKERS)
            notReady(new Error(`worker ${index} exited (${code ?? signal}) before it was ready`));
          resolve({ code, signal });
        }),
      );
    });

    try {
      await everyoneReady;
      // The victim first, alone: nothing else can take the room its first grants need.
      children[KILLED]?.send('go');
      const held = await victimHolds;
      expect(held).toBeGreaterThanOrEqual(1);
      // It holds them in Redis, renewed, as it waits: provably, before it is killed.
      const [, beforeDeath] = await scopeOf(KILLED).usage();
      expect(beforeDeath?.inFlight).toBeGreaterThanOrEqual(held);
      for (const [index, child] of children.entries()) if (index !== KILLED) child.send('go');
      children[KILLED]?.kill('SIGKILL');
      // It was killed, rather than ending on its own: it cannot, as it waits for good.
      expect(await finished[KILLED]).toEqual({ code: null, signal: 'SIGKILL' });
      expect(killedAt).not.toBeNull();
      // It died holding its leases: they stay until their TTL, then count at their worst case, unsettled.
      const [, atDeath] = await scopeOf(KILLED).usage();
      expect(atDeath?.inFlight).toBeGreaterThanOrEqual(held);
      let returnedAfterMs = Number.POSITIVE_INFINITY;
      while (performance.now() < (killedAt ?? 0) + LEASE_TTL_MS + 10_000) {
        const [, own] = await scopeOf(KILLED).usage();
        if (own?.inFlight === 0 && own.reservedNanoUsd === 0) {
          returnedAfterMs = performance.now() - (killedAt ?? 0);
          break;
        }
        await sleep(25);
      }
      const exits = await Promise.all(finished);
      expect(exits[KILLED]).toEqual({ code: null, signal: 'SIGKILL' });
      expect(returnedAfterMs).toBeLessThanOrEqual(LEASE_TTL_MS + 1000);
      const [, killedScope] = await scopeOf(KILLED).usage();
      expect(killedScope?.unsettledCalls).toBeGreaterThanOrEqual(atDeath?.inFlight ?? 1);

      // The others carried on: every call of theirs was settled, refused by the budget, or failed after retries.
      expect(exits.filter((exit) => exit.code === 0)).toHaveLength(WORKERS - 1);
      for (let index = 0; index < WORKERS; index++) {
        if (index === KILLED) continue;
        const report = reports.get(index);
        expect(report, `worker ${index}`).toBeDefined();
        const refusals = Object.values(report?.refusals ?? {}).reduce((sum, count) => sum + count, 0);
        const failures = Object.values(report?.failures ?? {}).reduce((sum, count) => sum + count, 0);
        expect((report?.records ?? 0) + refusals + failures).toBe(CALLS_PER_WORKER);
        expect(report?.ended).toBe(report?.granted);
        expect(report?.flushed).toBe(true);
        // Its own scope holds exactly its records, plus the worst cases of attempts whose cost is unknown.
        const [, own] = await scopeOf(index).usage();
        expect(own?.spentNanoUsd, `worker ${index}`).toBe(
          (report?.recordsNanoUsd ?? 0) + Math.round((own?.unsettledUsd ?? 0) * 1e9),
        );
      }

      const [total] = await observer.usage();
      const survivors = [...reports.values()];
      const ownSpend = await Promise.all(
        Array.from(
          { length: WORKERS },
          async (_, index) => (await scopeOf(index).usage())[1]?.spentNanoUsd ?? 0,
        ),
      );
      // Zero overshoot, and the limit was what stopped the run; what the emulator billed is within the books.
      expect(total?.spentNanoUsd).toBeLessThanOrEqual(Math.floor(LIMIT_USD * 1e9));
      expect(proxy.billedNanoUsd).toBeLessThanOrEqual(total?.spentNanoUsd ?? 0);
      expect(survivors.reduce((sum, report) => sum + (report.refusals.spend ?? 0), 0)).toBeGreaterThan(0);
      expect(survivors.find((report) => report.refusalMessages.spend)?.refusalMessages.spend).toMatch(
        /^budget scope "load-run" refused a call of primary-flash: limit \$0\.015000, spent \$0\.\d{6}( \(\$0\.\d{6} of it unsettled worst cases\))?, reserved \$0\.\d{6} by calls in flight, this call needs up to \$0\.\d{6}$/,
      );
      // Every reservation ended settled or released: nothing is left reserved or in flight.
      expect(total).toMatchObject({ reservedNanoUsd: 0, inFlight: 0 });
      expect(total?.spentNanoUsd).toBe(ownSpend.reduce((sum, spent) => sum + spent, 0));
      // The emulator never saw more calls in flight than the limit; and it did see many at once.
      expect(proxy.peakInFlight).toBeLessThanOrEqual(MAX_IN_FLIGHT);
      // Liveness: more calls at once than there are workers, so calls ran side by side within a
      // worker too (a budget that let one call per process through at a time would peak at 8).
      expect(proxy.peakInFlight).toBeGreaterThan(WORKERS);
    } finally {
      for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
      await observer.close({ timeoutMs: 0 });
    }
  }, 180_000);
});

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
