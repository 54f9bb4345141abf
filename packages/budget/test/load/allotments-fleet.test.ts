// Allotments across processes on a real redis-server and a real PostgreSQL: 16 worker processes (4 calls
// at a time each, through a ChatAdapter over OpenAITransport to the emulator over loopback) spend one
// budget to its end, each reserving from shares of the headroom it leases. One worker is SIGKILLed holding its share
// (a call of it in flight): the share stays reserved until its lease expires, within the TTL, then counts
// at its worst case, unsettled. Spend never passes the limit, the books are never below the emulator's
// bill, and the others still spend the budget to ≥ 99 % of its limit. Twice more with the server stalled mid-run
// for twice the lease TTL: the same guarantees, and no call refused but for spend.
import { type ChildProcess, fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { ChatAdapter, OpenAITransport } from '@switchboard/adapter';
import { type Emulator, startEmulator } from '@switchboard/emulator';
import { afterAll, beforeAll, describe, expect, it, onTestFailed } from 'vitest';
import { createBudget } from '../../src/budget.js';
import type { BudgetStore } from '../../src/budget-store.js';
import { MemoryBudgetStore } from '../../src/memory-store.js';
import { PostgresBudgetStore } from '../../src/postgres-store.js';
import { RedisBudgetStore } from '../../src/redis-store.js';
import { listBudgetScopes } from '../../src/show/scope-listing.js';
// Types only: importing the worker's module would run it.
import type { AllotmentWorkerReport, AllotmentWorkerSettings } from '../support/allotment-worker.js';
import { serverActivity } from '../support/server-activity.js';
import { startPostgres } from '../support/start-postgres.js';
import { startRedis } from '../support/start-redis.js';
import { until } from '../support/until.js';

const WORKERS = 16;
const LANES = 4;
const VICTIM = 0;
const LEASE_TTL_MS = 3_000;
const MAX_TOKENS = 24;
const API_KEY = 'sk-allotments-fleet';
/** The workers' model (allotment-worker.ts). */
const ALLOTMENT_MODEL = 'primary-flash';
/**
 * A hang guard below the test's own limit, so that a run that hangs fails with where it stopped in its
 * message: the step, each worker's state and last words, and what the server is doing.
 */
const WATCHDOG_MS = 240_000;
/** How long a worker is given to answer a `status` request, when the watchdog fired. */
const STATUS_MS = 2_000;

/** A shared store for the fleet: started, read by the parent, listed as budget show lists it, stopped. */
interface Server {
  readonly kind: 'redis' | 'postgres';
  readonly url: string;
  readonly store: BudgetStore & { close(): Promise<void> };
  list(
    scope: string,
  ): AsyncIterable<{ scope: string; reservedUsd: number; inFlight: number; spentUsd: number }>;
  stop(): Promise<void>;
  /** The server's last log lines (PostgreSQL's; none kept for redis-server). */
  logTail(): string;
  /** Stops the server answering for `ms` (SIGSTOP, then SIGCONT). */
  stall(ms: number): Promise<void>;
}

async function redisServer(): Promise<Server> {
  const redis = await startRedis();
  return {
    kind: 'redis',
    url: redis.url,
    store: new RedisBudgetStore({ url: redis.url, prefix: 'allot:', commandTimeoutMs: 15_000 }),
    list: (scope) => listBudgetScopes({ url: redis.url, prefix: 'allot:', scope }),
    stop: () => redis.stop(),
    logTail: () => '',
    stall: (ms) => redis.stall(ms),
  };
}

async function postgresServer(): Promise<Server> {
  const postgres = await startPostgres();
  return {
    kind: 'postgres',
    url: postgres.url,
    store: new PostgresBudgetStore({ url: postgres.url, schema: 'allot' }),
    list: (scope) => listBudgetScopes({ url: postgres.url, schema: 'allot', scope }),
    stop: () => postgres.stop(),
    logTail: () => `its log:\n${postgres.logTail()}`,
    stall: (ms) => postgres.stall(ms),
  };
}
const packageRoot = fileURLToPath(new URL('../../', import.meta.url));
const workerPath = fileURLToPath(new URL('../support/allotment-worker.ts', import.meta.url));

describe.each([
  { name: 'redis-server', start: redisServer, stalled: false },
  { name: 'PostgreSQL', start: postgresServer, stalled: false },
  // A server stalled (SIGSTOP) once a quarter of the budget is spent: every lease expires in the stall. After
  // it, PostgreSQL's sweeps are due while settlements mark thresholds (version 8 of its functions deadlocked
  // there, and the fleet stalled for minutes); Redis's scripts purge the expired leases.
  { name: 'PostgreSQL, stalled for twice the lease TTL mid-run', start: postgresServer, stalled: true },
  { name: 'redis-server, stalled for twice the lease TTL mid-run', start: redisServer, stalled: true },
])('allotments: 16 processes spend a budget on $name to its end', ({ start, stalled }) => {
  let server: Server;
  let emulator: Emulator;
  let store: BudgetStore;

  beforeAll(async () => {
    server = await start();
    store = server.store;
    emulator = await startEmulator({ key: API_KEY });
  }, 120_000);

  afterAll(async () => {
    // Each bounded, so a close that hangs says which one and what the server was doing.
    const within = async (what: string, closing: Promise<void> | void | undefined) => {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        closing,
        new Promise<never>((_, reject) => {
          timer = setTimeout(async () => {
            const activity = server ? await serverActivity(server.kind, server.url) : '';
            reject(new Error(`${what} did not end within 15 s\n${activity}`));
          }, 15_000);
        }),
      ]).finally(() => clearTimeout(timer));
    };
    await within('the parent store closing', server?.store.close());
    await within('the emulator closing', emulator?.close());
    await server?.stop();
  }, 60_000);

  /** The worst case the budget reserves for one of the workers' calls, in nano-dollars (a probe on a memory store). */
  async function worstCaseNanoUsd(): Promise<number> {
    const probe = new MemoryBudgetStore();
    const budget = createBudget({ store: probe, scope: { name: 'probe', maxInFlight: 1 } });
    let reserved = 0;
    const adapter = new ChatAdapter(new OpenAITransport({ apiKey: API_KEY, baseUrl: emulator.url }), {
      observers: [
        {
          async beforeAttempt(info) {
            const handle = await budget.beforeAttempt(info);
            reserved = probe.counters([{ key: '{probe}', limitNanoUsd: null, maxInFlight: null }])[0]
              ?.reservedNanoUsd as number;
            return handle;
          },
        },
      ],
    });
    await adapter.complete({
      model: ALLOTMENT_MODEL,
      messages: [{ role: 'user', content: 'Worker 15, call 99999: summarize the build.' }],
      maxTokens: MAX_TOKENS,
    });
    await budget.close();
    emulator.reset();
    return reserved;
  }

  it("never overshoots, keeps the books at or above the bill, reaches ≥ 99 % of the limit, and a SIGKILLed worker's share comes back within the TTL", async () => {
    const worst = await worstCaseNanoUsd();
    // A limit of 400 worst cases: the end of the budget (less than one worst case left) is under 1 % of it.
    const limitNanoUsd = 400 * worst;
    const root = { name: 'fleet', limitUsd: limitNanoUsd / 1e9 };
    const reader = createBudget({ store, scope: root, onWarning: () => {} });
    // The ledger made before the workers start (on PostgreSQL: its schema and functions).
    await reader.usage();
    const scopeOf = (index: number) => reader.child({ name: `worker-${index}` });

    const children: ChildProcess[] = [];
    // Where each worker got to (its last report, its exit): printed if the test fails or times out.
    const seen = Array.from({ length: WORKERS }, () => 'started');
    const statuses: string[] = Array.from({ length: WORKERS }, () => '');
    const lastWords: string[][] = Array.from({ length: WORKERS }, () => []);
    let step = 'starting the workers';
    const whereItStopped = async () => {
      for (const child of children) if (child.connected) child.send('status');
      await new Promise((resolve) => setTimeout(resolve, STATUS_MS));
      const workers = seen.map(
        (state, index) =>
          `  worker ${index}: ${state}${statuses[index] ? `; now ${statuses[index]}` : ''}${lastWords[index]?.length ? `\n    ${lastWords[index]?.join('\n    ')}` : ''}`,
      );
      return `the test at: ${step}; each worker's last report:\n${workers.join('\n')}\n${await serverActivity(server.kind, server.url)}\n${server.logTail()}`;
    };
    let watchdog: NodeJS.Timeout | undefined;
    const hung = new Promise<never>((_, reject) => {
      watchdog = setTimeout(
        async () =>
          reject(
            new Error(
              `allotments fleet on ${server.kind}: no end within ${WATCHDOG_MS / 1000} s; ${await whereItStopped()}`,
            ),
          ),
        WATCHDOG_MS,
      );
    });
    hung.catch(() => {});
    onTestFailed(() => {
      console.error(`allotments fleet on ${server.kind} failed; the test at: ${step}`);
      console.error(seen.map((state, index) => `  worker ${index}: ${state}`).join('\n'));
    });
    const done = new Map<number, Extract<AllotmentWorkerReport, { type: 'done' }>>();
    let victimHolding: () => void = () => {};
    const holding = new Promise<void>((resolve) => {
      victimHolding = resolve;
    });
    const exits = Array.from({ length: WORKERS }, (_, index) => {
      const settings: AllotmentWorkerSettings = {
        index,
        store: { kind: server.kind, url: server.url },
        baseUrl: emulator.url,
        apiKey: API_KEY,
        root,
        lanes: LANES,
        maxTokens: MAX_TOKENS,
        leaseTtlMs: LEASE_TTL_MS,
        holdAfterGrants: index === VICTIM ? 3 : null,
      };
      const child = fork(workerPath, [JSON.stringify(settings)], {
        cwd: packageRoot,
        execArgv: ['--import', 'tsx'],
        stdio: ['ignore', 'inherit', 'pipe', 'ipc'],
      });
      children.push(child);
      // Printed as they come, and the last few kept for a failure's message.
      child.stderr?.on('data', (chunk: Buffer) => {
        process.stderr.write(chunk);
        const lines = lastWords[index] ?? [];
        lines.push(...String(chunk).trimEnd().split('\n'));
        lines.splice(0, Math.max(0, lines.length - 6));
      });
      const ready = new Promise<void>((resolve) =>
        child.on('message', (report: AllotmentWorkerReport) => {
          if (report.type === 'status') {
            statuses[index] = JSON.stringify(report);
            return;
          }
          seen[index] = JSON.stringify(report);
          if (report.type === 'ready') resolve();
          if (report.type === 'holding') victimHolding();
          if (report.type === 'done') done.set(index, report);
        }),
      );
      const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) =>
        child.on('exit', (code, signal) => {
          seen[index] += `, exited ${JSON.stringify({ code, signal })}`;
          resolve({ code, signal });
        }),
      );
      return { ready, exited };
    });
    try {
      // The body against the watchdog: a hang fails with where it stopped.
      const body = async () => {
        await Promise.race([
          Promise.all(exits.map((exit) => exit.ready)),
          Promise.race(exits.map((exit) => exit.exited)).then((exit) => {
            throw new Error(`a worker exited before it was ready: ${JSON.stringify(exit)}`);
          }),
        ]);

        step = 'the victim leasing and holding';
        // The victim alone first: it leases a share and holds a call of it, provably, before it is killed.
        children[VICTIM]?.send('go');
        await holding;
        const [, held] = await scopeOf(VICTIM).usage();
        expect(held?.inFlight).toBe(1);
        const share = held?.reservedNanoUsd ?? 0;
        expect(share).toBeGreaterThanOrEqual(worst);
        // budget show (listBudgetScopes) counts what the share holds: one reservation, one call in flight.
        const shown = [];
        for await (const listing of server.list('fleet/worker-0')) shown.push(listing);
        expect(shown).toEqual([
          expect.objectContaining({
            scope: 'fleet/worker-0',
            reservedUsd: share / 1e9,
            inFlight: 1,
            spentUsd: 0,
          }),
        ]);
        step = 'the victim killed';
        children[VICTIM]?.kill('SIGKILL');
        expect(await exits[VICTIM]?.exited).toEqual({ code: null, signal: 'SIGKILL' });
        const killedAt = performance.now();
        for (const [index, child] of children.entries()) if (index !== VICTIM) child.send('go');
        // The stall: once a quarter of the limit is spent, the server answers nothing for twice the lease TTL.
        let spentAtStall: number | null = null;
        const stalling = stalled
          ? (async () => {
              await until(
                async () => {
                  spentAtStall = (await reader.usage())[0]?.spentNanoUsd ?? 0;
                  return spentAtStall >= limitNanoUsd / 4;
                },
                'a quarter of the budget spent',
                { deadlineMs: 120_000 },
              );
              await server.stall(2 * LEASE_TTL_MS);
            })()
          : Promise.resolve();
        // Awaited below; a failure of it before then is not unhandled.
        stalling.catch(() => {});

        // Its share stays reserved until its lease expires: at the latest a TTL after its last renewal,
        // before the kill. So once a TTL has passed since the kill was seen (a timer never fires early),
        // the store shows it released, counted at its worst case.
        const [, justKilled] = await scopeOf(VICTIM).usage();
        const stillHeld = performance.now() - killedAt < LEASE_TTL_MS;
        if (stillHeld) expect(justKilled?.reservedNanoUsd).toBe(share);
        await new Promise((resolve) =>
          setTimeout(resolve, Math.max(0, killedAt + LEASE_TTL_MS - performance.now())),
        );
        step = "the victim's share expired";
        const [, dead] = await scopeOf(VICTIM).usage();
        expect(dead).toMatchObject({
          reservedNanoUsd: 0,
          inFlight: 0,
          spentNanoUsd: share,
          unsettledUsd: share / 1e9,
          unsettledCalls: 1,
        });

        step = stalled ? 'the stall' : 'waiting for the workers to end';
        await stalling;
        // Mid-run: the workers spent the larger part of the budget after it.
        if (stalled) expect(spentAtStall).toBeLessThan(limitNanoUsd / 2);
        step = 'waiting for the workers to end';
        const ended = await Promise.all(exits.map((exit) => exit.exited));
        expect(ended.filter((exit) => exit.code === 0)).toHaveLength(WORKERS - 1);
        step = 'reading the books';
        const [books] = await reader.usage();
        const bill = emulator.bill().totalNanoUsd;
        const reports = [...done.values()];
        const recorded = reports.reduce((sum, report) => sum + report.recordsNanoUsd, 0);
        console.log(
          `allotments fleet on ${server.kind}: spent ${books?.spentNanoUsd} of ${limitNanoUsd} nano-USD (${(((books?.spentNanoUsd ?? 0) / limitNanoUsd) * 100).toFixed(2)} %), bill ${bill}, worst case ${worst}, the killed share ${share}`,
        );
        expect(reports).toHaveLength(WORKERS - 1);
        for (const report of reports) {
          expect(report.failures, `failures: ${report.failed.join('; ')}`).toBe(0);
          expect(report.flushed).toBe(true);
          // Each lane ended on a refusal for spend, and nothing else was refused: a store that is slow (or
          // stalled, shorter than its statement timeout) makes calls wait, never refuses them as unreachable.
          expect(report.refusals).toEqual({ spend: LANES });
        }
        expect(books).toMatchObject({ reservedNanoUsd: 0, inFlight: 0 });
        // The root passed 0.8 of its limit (not 1): fired once across the processes, by whichever settled a share past it.
        expect(reports.flatMap((report) => report.thresholds).sort()).toEqual(['fleet 0.8']);
        // Never over the limit, never below the bill; the survivors' known costs are settled exactly.
        expect(books?.spentNanoUsd).toBeLessThanOrEqual(limitNanoUsd);
        expect(bill).toBeLessThanOrEqual(limitNanoUsd);
        expect(books?.spentNanoUsd).toBeGreaterThanOrEqual(bill);
        expect((books?.spentNanoUsd ?? 0) - Math.round((books?.unsettledUsd ?? 0) * 1e9)).toBe(recorded);
        // Spent to its end: each lane stopped only when less than one worst case was left.
        expect(books?.spentNanoUsd).toBeGreaterThan(limitNanoUsd - worst);
        expect((books?.spentNanoUsd ?? 0) / limitNanoUsd).toBeGreaterThanOrEqual(0.99);
      };
      await Promise.race([body(), hung]);
    } finally {
      clearTimeout(watchdog);
      for (const child of children)
        if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await reader.close();
    }
  }, 300_000);
});
