// The fleet: 8 worker processes, each a budget on its own connections to one store, spend a root ($2)
// and tenants ($0.60 each) with thresholds [0.5, 0.8, 1]; 4 of them keep calls in flight, one is
// SIGKILLed holding calls. On PostgreSQL, whose clock the test moves (clock-shim.c), the limits are daily
// and the clock passes midnight between the phases: the new day starts from $0 and the calls held over
// settle into the day they were reserved in; the same on redis-server, its clock moved by the same
// shim. On a 3-node Redis Cluster (whose nodes' failure detection a moved clock would move too), the
// same without windows. Then, per window and scope: spend ≤ limit, and
// spend equals what the workers settled plus the killed worker's worst cases, to the nano-dollar, with
// nothing reserved once its TTL passed (phantom spend 0); each threshold reached was fired exactly once
// in all, and none that was not reached.
import { type ChildProcess, fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Cluster } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it, onTestFailed } from 'vitest';
import type { BudgetStore } from '../src/budget-store.js';
import { PostgresBudgetStore } from '../src/postgres-store.js';
import { RedisBudgetStore } from '../src/redis-store.js';
import { windowKey } from '../src/scope-windows.js';
import { type WindowBounds, windowBounds } from '../src/window-bounds.js';
import { type MovableClock, movableClock } from './support/fake-clock.js';
import type { FleetCommand, FleetReport, FleetWorkerSettings } from './support/fleet-worker.js';
import { startPostgres, type TestPostgres } from './support/start-postgres.js';
import { startRedis, type TestRedis } from './support/start-redis.js';
import { startRedisCluster, type TestRedisCluster } from './support/start-redis-cluster.js';
import { until } from './support/until.js';

const workerPath = fileURLToPath(new URL('./support/fleet-worker.ts', import.meta.url));
const packageRoot = fileURLToPath(new URL('../', import.meta.url));
const TENANTS = ['acme', 'globex', 'initech', 'umbrella'];
const ROOT_LIMIT_NANO = 2_000_000_000;
const TENANT_LIMIT_NANO = 600_000_000;
// Moving the server's clock forward is a jump a real midnight never makes: every lease with less time
// left than the jump would expire. The workers holding calls over midnight renew every minute (180 s
// TTL), and the jump is at most 95 s; the others hold nothing then, and a short TTL (6 s) bounds the
// wait for the killed worker's leases.
const HOLDER_TTL_MS = 180_000;
const LEASE_TTL_MS = 6000;
const BEFORE = '2026-11-28T23:58:30Z';
/** 8 processes on a shared 2-core machine: well past the 40-60 s a run takes there. */
const FLEET_TIMEOUT_MS = 300_000;
const AFTER = '2026-11-29T00:00:05Z';

interface Worker {
  readonly child: ChildProcess;
  readonly reports: FleetReport[];
  next<T extends FleetReport['type']>(type: T): Promise<Extract<FleetReport, { type: T }>>;
  send(command: FleetCommand): void;
}

function startWorker(settings: FleetWorkerSettings, events: FleetReport[]): Worker {
  const child = fork(workerPath, [JSON.stringify(settings)], {
    cwd: packageRoot,
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const reports: FleetReport[] = [];
  const waiting: ((report: FleetReport) => boolean)[] = [];
  child.on('message', (report: FleetReport) => {
    if (report.type === 'threshold') events.push(report);
    else reports.push(report);
    for (const wake of [...waiting]) if (wake(report)) waiting.splice(waiting.indexOf(wake), 1);
  });
  return {
    child,
    reports,
    next(type) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`worker ${settings.index} sent no ${type} within 90 s`)),
          90_000,
        );
        const wake = (report: FleetReport) => {
          clearTimeout(timer);
          if (report.type === 'error') reject(new Error(`worker ${settings.index}: ${report.message}`));
          else if (report.type === type) resolve(report as never);
          else {
            timer.refresh();
            return false;
          }
          return true;
        };
        waiting.push(wake);
      });
    },
    send: (command) => child.send(command),
  };
}

/** Refused once the root or a tenant is full (spend, or held by calls in flight), never otherwise. */
function refusedOnlyWhenFull(reports: readonly Extract<FleetReport, { type: 'spent' }>[]): void {
  for (const report of reports) {
    expect(
      Object.keys(report.refusals).filter((reason) => reason !== 'spend' && reason !== 'reserved'),
      `refused otherwise: ${report.unexpected.join(' | ')}`,
    ).toEqual([]);
  }
}

function sum(into: Map<string, number>, settled: Record<string, number>): void {
  for (const [scope, nano] of Object.entries(settled)) into.set(scope, (into.get(scope) ?? 0) + nano);
}

interface Fleet {
  /** The store the parent reads the counters from. */
  readonly store: BudgetStore;
  readonly workerStore: FleetWorkerSettings['store'];
  /** Moves the store's clock (PostgreSQL and redis-server under clock-shim.c); null where it is not moved. */
  readonly moveTo: ((iso: string) => void) | null;
}

/**
 * The scenario: 4 workers hold 2 calls of tenant hooli each; with a clock, the store's clock is put just
 * before midnight first. All 8 spend. With a clock, midnight passes and the held calls settle after it.
 * A worker takes 3 calls of globex and is SIGKILLed holding them; once they expired, the others (3) spend
 * again; the held calls settle. Then every scope's books are checked in each window.
 */
async function runFleet(fleet: Fleet, workers: Worker[]): Promise<void> {
  const windowed = fleet.moveTo !== null;
  const events: FleetReport[] = [];
  for (let index = 0; index < 8; index += 1) {
    const settings: FleetWorkerSettings = {
      index,
      store: fleet.workerStore,
      window: windowed ? 'day' : null,
      rootLimitUsd: ROOT_LIMIT_NANO / 1e9,
      tenantLimitUsd: TENANT_LIMIT_NANO / 1e9,
      tenants: TENANTS,
      leaseTtlMs: index < 4 ? HOLDER_TTL_MS : LEASE_TTL_MS,
    };
    workers.push(startWorker(settings, events));
  }
  await Promise.all(workers.map((worker) => worker.next('ready')));
  // A window per phase: the days before and after midnight, or one ledger that never resets.
  const windows = windowed
    ? [BEFORE, AFTER].map((iso) => windowBounds({ period: 'day', timeZone: 'UTC' }, Date.parse(iso)))
    : [null, null];
  const settled = windowed
    ? [new Map<string, number>(), new Map<string, number>()]
    : [new Map<string, number>()];
  const phase2 = settled[settled.length - 1] as Map<string, number>;
  const keyOf = (scope: string, window: WindowBounds | null) => {
    const key = scope === 'fleet' ? '{fleet}' : `{fleet}${scope.slice('fleet'.length)}`;
    return window === null ? key : windowKey(key, window.startMs);
  };

  // A worker takes 3 calls of globex and dies holding them: once expired, they count at their worst case
  // (without windows, before anything else: later the root would have no room for them).
  const killVictim = async () => {
    const victim = workers[7] as Worker;
    victim.send({ cmd: 'hold', count: 3, tenant: 'globex' });
    await victim.next('holding');
    victim.child.kill('SIGKILL');
    const root = { key: keyOf('fleet', windows.at(-1) ?? null), limitNanoUsd: null, maxInFlight: null };
    await until(
      async () => (await fleet.store.counters([root]))[0]?.inFlight === 0,
      'the killed worker’s leases expire',
      {
        everyMs: 100,
      },
    );
    const worstCases = 3 * 10 * 1_000_000;
    sum(phase2, { fleet: worstCases, 'fleet/globex': worstCases });
  };
  if (!windowed) await killVictim();

  // Each of 4 workers holds 2 calls of tenant hooli ($0.01 each at worst), then all spend.
  const holders = workers.slice(0, 4);
  for (const worker of holders) worker.send({ cmd: 'hold', count: 2, tenant: 'hooli' });
  await Promise.all(holders.map((worker) => worker.next('holding')));
  const spending = windowed ? workers : workers.slice(0, 7);
  for (const worker of spending) worker.send({ cmd: 'spend', calls: 60, lanes: 4 });
  const first = await Promise.all(spending.map((worker) => worker.next('spent')));
  for (const report of first) sum(settled[0] as Map<string, number>, report.settled);
  refusedOnlyWhenFull(first);
  if (fleet.moveTo !== null) {
    // Still the first day (a machine so slow that the server's clock passed midnight by itself proves nothing).
    const endOfFirst = await (fleet.store.clockMs?.() ?? 0);
    expect(endOfFirst, 'the first phase ended before midnight on the server').toBeLessThan(
      (windows[0] as WindowBounds).endMs - 2000,
    );
    // Midnight passes (the store's clock only: the workers' own clocks never move).
    fleet.moveTo(AFTER);
  }

  if (windowed) await killVictim();
  // The others spend again (in the new day, with a clock), each settlement seeing the dead worker's worst cases.
  for (const worker of workers.slice(4, 7)) worker.send({ cmd: 'spend', calls: 60, lanes: 4 });
  const second = await Promise.all(workers.slice(4, 7).map((worker) => worker.next('spent')));
  refusedOnlyWhenFull(second);
  for (const report of second) sum(phase2, report.settled);
  // The held calls settle (into the day they were reserved in, after midnight).
  for (const worker of holders) worker.send({ cmd: 'release', costUsd: 0.004 });
  const released = await Promise.all(holders.map((worker) => worker.next('released')));
  for (const report of released) sum(settled[0] as Map<string, number>, report.settled);

  for (const [phase, window] of windows.slice(0, settled.length).entries()) {
    for (const scope of ['fleet', ...[...TENANTS, 'hooli'].map((tenant) => `fleet/${tenant}`)]) {
      const where = `${scope}${window === null ? '' : ` on day ${phase + 1}`}`;
      const key = keyOf(scope, window);
      const [counters] = await fleet.store.counters([{ key, limitNanoUsd: null, maxInFlight: null }]);
      const limit = scope === 'fleet' ? ROOT_LIMIT_NANO : TENANT_LIMIT_NANO;
      expect(counters?.spentNanoUsd, where).toBeLessThanOrEqual(limit);
      // Phantom spend 0: the spend is exactly what was settled plus the dead worker's worst cases.
      expect(counters?.spentNanoUsd, where).toBe(settled[phase]?.get(scope) ?? 0);
      expect(counters, where).toMatchObject({ reservedNanoUsd: 0, inFlight: 0 });
      const reached = [0.5, 0.8, 1].filter((fraction) => (counters?.spentNanoUsd ?? 0) >= fraction * limit);
      const start = window === null ? null : new Date(window.startMs).toISOString();
      const fired = events.flatMap((event) =>
        event.type === 'threshold' && event.scope === scope && event.window === start ? [event.fraction] : [],
      );
      // Each threshold reached, exactly once across the 8 processes.
      expect(fired.sort(), where).toEqual(reached);
    }
  }
  // Every root filled past 0.8 of its limit (after midnight from $0): their thresholds were exercised.
  expect(
    events.filter((event) => event.type === 'threshold' && event.scope === 'fleet').length,
  ).toBeGreaterThanOrEqual(2 * windows.slice(0, settled.length).length);
  for (const worker of workers.slice(0, 7)) worker.send({ cmd: 'exit' });
  await Promise.all(
    workers.slice(0, 7).map((worker) => new Promise((resolve) => worker.child.once('exit', resolve))),
  );
}

describe('8 worker processes through a simulated midnight on PostgreSQL', () => {
  let postgres: TestPostgres;
  let store: PostgresBudgetStore;
  let clock: MovableClock;
  const workers: Worker[] = [];

  beforeAll(async () => {
    clock = movableClock();
    clock.moveTo(BEFORE);
    postgres = await startPostgres({ env: clock.env });
    store = new PostgresBudgetStore({ url: postgres.url });
    await store.migrate();
  });
  afterAll(async () => {
    for (const worker of workers) worker.child.kill('SIGKILL');
    await store?.close();
    await postgres?.stop();
  });

  it(
    'per day and scope: spend ≤ limit, held calls in their day, thresholds once, phantom spend 0',
    async () => {
      // A refusal as unreachable is the server's doing (a backend that crashed, a restart): its log says why.
      onTestFailed(() => {
        console.error(`PostgreSQL's log, its last lines:\n${postgres.logTail(40)}`);
      });
      await runFleet(
        { store, workerStore: { kind: 'postgres', url: postgres.url }, moveTo: (iso) => clock.moveTo(iso) },
        workers,
      );
    },
    FLEET_TIMEOUT_MS,
  );
});

describe('8 worker processes through a simulated midnight on redis-server', () => {
  let redis: TestRedis;
  let store: RedisBudgetStore;
  let clock: MovableClock;
  const workers: Worker[] = [];
  beforeAll(async () => {
    // No C compiler for the clock shim: the suite fails, naming what it needs (CI installs one; .ci/run).
    clock = movableClock();
    clock.moveTo(BEFORE);
    redis = await startRedis({ env: clock.env });
    store = new RedisBudgetStore({ url: redis.url });
  });
  afterAll(async () => {
    for (const worker of workers) worker.child.kill('SIGKILL');
    await store?.close();
    await redis?.stop();
  });

  it(
    'per day and scope: spend ≤ limit, held calls in their day, thresholds once, phantom spend 0',
    async () => {
      await runFleet(
        { store, workerStore: { kind: 'redis', url: redis.url }, moveTo: (iso) => clock.moveTo(iso) },
        workers,
      );
    },
    FLEET_TIMEOUT_MS,
  );
});

describe('8 worker processes on a 3-node Redis Cluster', () => {
  let cluster: TestRedisCluster;
  let client: Cluster;
  let store: RedisBudgetStore;
  const workers: Worker[] = [];
  beforeAll(async () => {
    cluster = await startRedisCluster();
    client = new Cluster([...cluster.nodes]);
    store = new RedisBudgetStore({ client });
  });
  afterAll(async () => {
    for (const worker of workers) worker.child.kill('SIGKILL');
    client?.disconnect();
    await cluster?.stop();
  });

  it(
    'per scope: spend ≤ limit, thresholds once, phantom spend 0',
    async () => {
      await runFleet(
        { store, workerStore: { kind: 'cluster', nodes: cluster.nodes }, moveTo: null },
        workers,
      );
    },
    FLEET_TIMEOUT_MS,
  );
});
