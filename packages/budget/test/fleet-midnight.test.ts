// The fleet through a midnight: 8 worker processes, each a budget on its own connections to one
// PostgreSQL whose clock the test moves (libfaketime), spend a daily root ($2) and daily tenants ($0.60
// each) with thresholds [0.5, 0.8, 1]. Before midnight they spend and 4 of them keep calls in flight;
// the clock passes midnight; they spend again (the new day from $0); the calls held over settle into
// the day they were reserved in; a worker is SIGKILLed holding leases. Then, per day and scope: spend
// ≤ limit, and spend equals what the workers settled plus the killed worker's worst cases, to the
// nano-dollar, with nothing reserved once its TTL passed (phantom spend 0); each threshold reached was
// fired exactly once in all, and none that was not reached.
import { type ChildProcess, fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresBudgetStore } from '../src/postgres-store.js';
import { windowKey } from '../src/scope-windows.js';
import { windowBounds } from '../src/window-bounds.js';
import { LIBFAKETIME_MISSING, libfaketime, type MovableClock, movableClock } from './support/fake-clock.js';
import type { FleetCommand, FleetReport, FleetWorkerSettings } from './support/fleet-worker.js';
import { startPostgres, type TestPostgres } from './support/start-postgres.js';
import { until } from './support/until.js';

const lib = libfaketime();
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

function sum(into: Map<string, number>, settled: Record<string, number>): void {
  for (const [scope, nano] of Object.entries(settled)) into.set(scope, (into.get(scope) ?? 0) + nano);
}

describe('8 worker processes through a simulated midnight on PostgreSQL', () => {
  let clock: MovableClock;
  let postgres: TestPostgres;
  let store: PostgresBudgetStore;
  const workers: Worker[] = [];

  beforeAll(async () => {
    // Not installed: the suite fails, naming what it needs (CI installs it; .ci/run).
    if (lib === null) throw new Error(LIBFAKETIME_MISSING);
    clock = movableClock(lib);
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

  it('spend ≤ limit per day and scope, held calls settle into their day, thresholds once, phantom spend 0', async () => {
    const events: FleetReport[] = [];
    for (let index = 0; index < 8; index += 1) {
      workers.push(
        startWorker(
          {
            index,
            url: postgres.url,
            rootLimitUsd: ROOT_LIMIT_NANO / 1e9,
            tenantLimitUsd: TENANT_LIMIT_NANO / 1e9,
            tenants: TENANTS,
            leaseTtlMs: index < 4 ? HOLDER_TTL_MS : LEASE_TTL_MS,
          },
          events,
        ),
      );
    }
    await Promise.all(workers.map((worker) => worker.next('ready')));
    const firstDay = windowBounds({ period: 'day', timeZone: 'UTC' }, Date.parse(BEFORE));
    const secondDay = windowBounds({ period: 'day', timeZone: 'UTC' }, Date.parse(AFTER));
    const settled = [new Map<string, number>(), new Map<string, number>()];

    // Before midnight: each of 4 workers holds 2 calls of tenant hooli ($0.01 each at worst), then all spend.
    const holders = workers.slice(0, 4);
    for (const worker of holders) worker.send({ cmd: 'hold', count: 2, tenant: 'hooli' });
    await Promise.all(holders.map((worker) => worker.next('holding')));
    for (const worker of workers) worker.send({ cmd: 'spend', calls: 60, lanes: 4 });
    const first = await Promise.all(workers.map((worker) => worker.next('spent')));
    for (const report of first) sum(settled[0] as Map<string, number>, report.settled);
    // Refused once the day's root or a tenant is full (spend, or held by calls in flight), never otherwise.
    for (const report of first) {
      expect(
        Object.keys(report.refusals).filter((reason) => reason !== 'spend' && reason !== 'reserved'),
      ).toEqual([]);
    }
    // Still the first day (a machine so slow that the server's clock passed midnight by itself proves nothing here).
    const endOfFirst = await store.clockMs();
    expect(endOfFirst, 'the first phase ended before midnight on the server').toBeLessThan(
      firstDay.endMs - 2000,
    );

    // Midnight passes (the store's clock only: the workers' own clocks never move).
    clock.moveTo(AFTER);
    // A worker takes 3 calls of globex in the new day and dies holding them: they count at their worst case once expired.
    const victim = workers[7] as Worker;
    victim.send({ cmd: 'hold', count: 3, tenant: 'globex' });
    await victim.next('holding');
    victim.child.kill('SIGKILL');
    for (const worker of workers.slice(4, 7)) worker.send({ cmd: 'spend', calls: 60, lanes: 4 });
    const second = await Promise.all(workers.slice(4, 7).map((worker) => worker.next('spent')));
    for (const report of second) sum(settled[1] as Map<string, number>, report.settled);
    // The calls held over midnight settle into the day they were reserved in.
    for (const worker of holders) worker.send({ cmd: 'release', costUsd: 0.004 });
    const released = await Promise.all(holders.map((worker) => worker.next('released')));
    for (const report of released) sum(settled[0] as Map<string, number>, report.settled);

    const day2 = (scope: string) => ({
      key: windowKey(scope, secondDay.startMs),
      limitNanoUsd: null,
      maxInFlight: null,
    });
    await until(
      async () => (await store.counters([day2('{fleet}')]))[0]?.inFlight === 0,
      'the killed worker’s leases expire',
      {
        everyMs: 100,
      },
    );
    const worstCases = 3 * 10 * 1_000_000;
    sum(settled[1] as Map<string, number>, { fleet: worstCases, 'fleet/globex': worstCases });

    for (const [day, bounds] of [firstDay, secondDay].entries()) {
      for (const scope of ['fleet', ...[...TENANTS, 'hooli'].map((tenant) => `fleet/${tenant}`)]) {
        const key = windowKey(
          scope === 'fleet' ? '{fleet}' : `{fleet}${scope.slice('fleet'.length)}`,
          bounds.startMs,
        );
        const [counters] = await store.counters([{ key, limitNanoUsd: null, maxInFlight: null }]);
        const limit = scope === 'fleet' ? ROOT_LIMIT_NANO : TENANT_LIMIT_NANO;
        expect(counters?.spentNanoUsd, `${scope} on day ${day + 1}`).toBeLessThanOrEqual(limit);
        // Phantom spend 0: the spend is exactly what was settled plus the dead worker's worst cases.
        expect(counters?.spentNanoUsd, `${scope} on day ${day + 1}`).toBe(settled[day]?.get(scope) ?? 0);
        expect(counters).toMatchObject({ reservedNanoUsd: 0, inFlight: 0 });
        const reached = [0.5, 0.8, 1].filter((fraction) => (counters?.spentNanoUsd ?? 0) >= fraction * limit);
        const fired = events
          .filter(
            (event) =>
              event.type === 'threshold' &&
              event.scope === scope &&
              event.window === new Date(bounds.startMs).toISOString(),
          )
          .map((event) => (event.type === 'threshold' ? event.fraction : -1));
        // Each threshold reached, exactly once across the 8 processes (those fired after a settlement).
        expect(fired.sort(), `${scope} on day ${day + 1}`).toEqual(reached);
      }
    }
    // Both days' roots filled past 0.8 of their limit (the second from $0): their thresholds were exercised.
    expect(
      events.filter((event) => event.type === 'threshold' && event.scope === 'fleet').length,
    ).toBeGreaterThanOrEqual(4);
    for (const worker of workers.slice(0, 7)) worker.send({ cmd: 'exit' });
    await Promise.all(
      workers.slice(0, 7).map((worker) => new Promise((resolve) => worker.child.once('exit', resolve))),
    );
  });
});
