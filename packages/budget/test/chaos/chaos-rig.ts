import { type ChildProcess, fork } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Emulator, startEmulator } from '@switchboard/emulator';
import { Redis } from 'ioredis';
import { createBudget, type ScopeUsage } from '../../src/budget.js';
import { RedisBudgetStore } from '../../src/redis-store.js';
import type { WorkerReport, WorkerSettings } from '../support/budget-worker.js';
import { type InFlightProxy, startInFlightProxy } from '../support/in-flight-proxy.js';
import { type RedisProxy, startRedisProxy } from '../support/redis-proxy.js';
import { startRedis, type TestRedis } from '../support/start-redis.js';

const API_KEY = 'sk-chaos-test';
const packageRoot = fileURLToPath(new URL('../../', import.meta.url));
const workerPath = fileURLToPath(new URL('../support/budget-worker.ts', import.meta.url));

/** The summary a worker sent when done. */
export type DoneReport = Extract<WorkerReport, { type: 'done' }>;

/**
 * A real redis-server (behind a TCP proxy that can lose replies), the emulator
 * (behind an HTTP proxy that counts calls in flight and what was billed) and
 * worker processes sharing one budget.
 */
export class ChaosRig {
  redis: TestRedis;
  readonly redisProxy: RedisProxy;
  readonly emulator: Emulator;
  readonly http: InFlightProxy;
  readonly persistence: boolean;
  readonly root: WorkerSettings['root'];
  readonly children: ChildProcess[] = [];

  private constructor(parts: {
    redis: TestRedis;
    redisProxy: RedisProxy;
    emulator: Emulator;
    http: InFlightProxy;
    persistence: boolean;
    root: WorkerSettings['root'];
  }) {
    this.redis = parts.redis;
    this.redisProxy = parts.redisProxy;
    this.emulator = parts.emulator;
    this.http = parts.http;
    this.persistence = parts.persistence;
    this.root = parts.root;
  }

  /** Starts the servers; `persistence` gives Redis an append-only file fsynced on every write. */
  static async start(options: { persistence: boolean; root: WorkerSettings['root'] }): Promise<ChaosRig> {
    const dir = options.persistence ? await mkdtemp(join(tmpdir(), 'budget-chaos-')) : null;
    const redis = await startRedis(dir ? { persistence: { dir } } : {});
    const redisProxy = await startRedisProxy(redis.port);
    // Every reply takes a while, so faults find calls in flight.
    const emulator = await startEmulator({ key: API_KEY, faults: [{ delayMs: 250 }] });
    const http = await startInFlightProxy(emulator.url);
    return new ChaosRig({
      redis,
      redisProxy,
      emulator,
      http,
      persistence: options.persistence,
      root: options.root,
    });
  }

  /** Starts `count` workers; `onProgress` hears each progress line; `dieAfterGrants` makes a worker kill itself holding a lease. */
  workers(
    count: number,
    settings: Partial<WorkerSettings>,
    onProgress: (index: number, report: Extract<WorkerReport, { type: 'progress' }>) => void = () => {},
    dieAfterGrants: ReadonlyMap<number, number> = new Map(),
  ): Promise<(DoneReport | null)[]> {
    let ready = 0;
    const started: ChildProcess[] = [];
    return Promise.all(
      Array.from({ length: count }, (_, index) => {
        const full: WorkerSettings = {
          index,
          redisUrl: this.redisProxy.url,
          baseUrl: this.http.url,
          apiKey: API_KEY,
          prefix: 'chaos:',
          root: this.root,
          calls: 40,
          concurrency: 4,
          leaseTtlMs: 2000,
          maxTokens: 64,
          commandTimeoutMs: 1000,
          fallbackShare: null,
          ...settings,
          dieAfterGrants: dieAfterGrants.get(index) ?? null,
        };
        const child = fork(workerPath, [JSON.stringify(full)], {
          cwd: packageRoot,
          execArgv: ['--import', 'tsx'],
          stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
        });
        this.children.push(child);
        started.push(child);
        let done: DoneReport | null = null;
        child.on('message', (report: WorkerReport) => {
          if (report.type === 'done') done = report;
          else if (report.type === 'ready') {
            // Every worker starts calling at once, however long each took to start.
            ready += 1;
            if (ready === count) for (const each of started) each.send('go');
          } else if (report.type === 'progress') onProgress(index, report);
        });
        return new Promise<DoneReport | null>((resolve) => child.on('exit', () => resolve(done)));
      }),
    );
  }

  /** Lets paused workers (`pauseAfterGrants`) start calls again. */
  resumeWorkers(): void {
    for (const child of this.children) if (child.exitCode === null && child.connected) child.send('resume');
  }

  /** Kills Redis (SIGKILL) and, after `downMs`, starts it again on the same port (and files, with persistence). */
  async crashRedis(downMs: number): Promise<void> {
    const { port, dir } = this.redis;
    const before = await runIdOf(this.redis.url);
    await this.redis.kill();
    await new Promise((resolve) => setTimeout(resolve, downMs));
    this.redis = await startRedis({ port, ...(dir ? { persistence: { dir } } : {}) });
    // The server on the port is the one just started (not one another test took the port with).
    const after = await runIdOf(this.redis.url);
    if (after === before)
      throw new Error(`the Redis on port ${port} was not restarted (same run_id ${after})`);
  }

  /**
   * The root's and each worker's usage, read straight from Redis by a reader started
   * after the run. A lost ledger (Redis restarted without persistence) is lost for
   * it too: it then says so (`lost`) and starts a new ledger, which keeps what the
   * scopes hold, to read them.
   */
  async usage(workers: number): Promise<{ root: ScopeUsage; own: ScopeUsage[]; lost: boolean }> {
    const store = new RedisBudgetStore({ url: this.redis.url, prefix: 'chaos:' });
    try {
      const reader = createBudget({ store, scope: this.root, onWarning: () => {} });
      const children = Array.from({ length: workers }, (_, index) =>
        reader.child({ name: `worker-${index}` }),
      );
      let lost = false;
      for (const budget of [reader, ...children]) {
        const reason = await budget.usage().then(
          () => null,
          (error: unknown) => (error as { reason?: unknown }).reason,
        );
        if (reason === null) continue;
        if (reason !== 'ledger_lost')
          throw new Error(`the reader could not read the books: ${String(reason)}`);
        lost = true;
        await budget.resetLedger();
      }
      const [root] = await reader.usage();
      const own: ScopeUsage[] = [];
      for (const child of children) {
        const [, scope] = await child.usage();
        if (scope) own.push(scope);
      }
      await reader.close({ timeoutMs: 0 });
      if (!root) throw new Error('no usage for the root');
      return { root, own, lost };
    } finally {
      await store.close();
    }
  }

  async stop(): Promise<void> {
    for (const child of this.children) if (child.exitCode === null) child.kill('SIGKILL');
    await this.http.close();
    await this.emulator.close();
    await this.redisProxy.close();
    await this.redis.stop();
    if (this.redis.dir) await rm(this.redis.dir, { recursive: true, force: true });
  }
}

/** Sums a count over the workers' reports (by refusal reason or failure kind). */
export function total(reports: readonly (DoneReport | null)[], pick: (report: DoneReport) => number): number {
  return reports.reduce((sum, report) => sum + (report ? pick(report) : 0), 0);
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** The run id of the Redis at `url` (new at every start). */
async function runIdOf(url: string): Promise<string> {
  const client = new Redis(url, { maxRetriesPerRequest: 1 });
  try {
    return /run_id:(\w+)/.exec(String(await client.info('server')))?.[1] ?? '';
  } finally {
    client.disconnect();
  }
}
