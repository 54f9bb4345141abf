// The conformance kit: what every BudgetStore must do, as one function any store's
// target runs through (`describeStoreConformance(target)`). The contract cases run
// for every store; the faults run for the stores that have them: peers (several
// connections to one ledger), a crash of the server (SIGKILL, then a restart), and
// worker processes sharing the ledger. A third party's store (DynamoDB, Valkey…)
// adds a target and runs the same kit; see docs/budgets.md, "Adding a store".
import { type ChildProcess, fork } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BudgetStore, ScopeCounters } from '../../src/budget-store.js';
import type { StoredScope } from '../../src/scope-limits.js';
import type { KitWorkerReport, KitWorkerSettings } from './kit-worker.js';

/** A store under test, and the faults it can be put through. */
export interface ConformanceTarget {
  readonly name: string;
  /** Starts what the stores need (a server); fails, never skips, when it cannot. */
  setUp(): Promise<void>;
  /** A store; with `shared`, every store made is a new connection to one ledger (another process's view). */
  create(): BudgetStore;
  tearDown(): Promise<void>;
  /** Stores made by `create()` share one ledger. */
  readonly shared: boolean;
  /** Kills the server (SIGKILL, as a crash) and, once `during()` resolved, starts it again. */
  crash?(during: () => Promise<void>): Promise<void>;
  /** Settled spend and held leases survive `crash()`: the ledger is durable. */
  readonly durable?: boolean;
  /** How a worker process makes a store on the same ledger: a module (absolute path), its export, options (JSON). */
  processStore?(): KitWorkerSettings['store'];
}

const workerPath = fileURLToPath(new URL('./kit-worker.ts', import.meta.url));
const packageRoot = fileURLToPath(new URL('../../', import.meta.url));

/** Counters without `ledgerLost` (a store may leave it out). */
function plain(counters: readonly ScopeCounters[]): ScopeCounters[] {
  return counters.map(({ ledgerLost: _, ...rest }) => rest);
}

function zero(figures: Partial<ScopeCounters> = {}): ScopeCounters {
  return {
    spentNanoUsd: 0,
    reservedNanoUsd: 0,
    inFlight: 0,
    unsettledNanoUsd: 0,
    unsettledCalls: 0,
    ...figures,
  };
}

/** Registers the kit's suites for `target`. */
export function describeStoreConformance(target: ConformanceTarget): void {
  describe(`${target.name} conforms to BudgetStore`, () => {
    beforeAll(() => target.setUp());
    afterAll(() => target.tearDown());

    const run = randomUUID().slice(0, 8);
    let chains = 0;
    /** A fresh chain: a root and a child, with the given limits. */
    function chain(root: Partial<StoredScope> = {}, child: Partial<StoredScope> = {}): StoredScope[] {
      chains += 1;
      const key = `{kit-${run}-${chains}}`;
      return [
        { key, limitNanoUsd: null, maxInFlight: null, ...root },
        { key: `${key}/child`, limitNanoUsd: null, maxInFlight: null, ...child },
      ];
    }
    const lease = (scopes: StoredScope[], amountNanoUsd: number, ttlMs = 30_000) => ({
      leaseId: randomUUID(),
      scopes,
      amountNanoUsd,
      ttlMs,
    });

    describe('the contract', () => {
      it('takes a lease in every scope or in none', async () => {
        const store = target.create();
        const scopes = chain({ limitNanoUsd: 100 }, { limitNanoUsd: 50 });
        expect(await store.acquire(lease(scopes, 60))).toMatchObject({
          granted: false,
          reason: 'spend',
          scopeIndex: 1,
        });
        expect(plain(await store.counters(scopes))).toEqual([zero(), zero()]);
        expect(await store.acquire(lease(scopes, 50))).toMatchObject({ granted: true });
        expect(plain(await store.counters(scopes))).toEqual([
          zero({ reservedNanoUsd: 50, inFlight: 1 }),
          zero({ reservedNanoUsd: 50, inFlight: 1 }),
        ]);
      });

      it('checks spend in every scope, then reservations, then slots', async () => {
        const store = target.create();
        const scopes = chain({ limitNanoUsd: 100, maxInFlight: 1 }, { limitNanoUsd: 100 });
        const held = lease(scopes, 60);
        await store.acquire(held);
        await store.settle(held.leaseId, scopes, { actualNanoUsd: 60 });
        await store.acquire(lease(scopes, 30));
        // Root: 60 spent, 30 reserved, its one slot taken. 50 fails spend (60 + 50 > 100) before the rest;
        // 20 fits the spend but not the reservation (60 + 30 + 20 > 100); 5 fits both but finds no slot.
        expect(await store.acquire(lease(scopes, 50))).toMatchObject({ reason: 'spend', scopeIndex: 0 });
        expect(await store.acquire(lease(scopes, 20))).toMatchObject({ reason: 'reserved', scopeIndex: 0 });
        expect(await store.acquire(lease(scopes, 5))).toMatchObject({ reason: 'in_flight', scopeIndex: 0 });
      });

      it('is idempotent by lease id: an acquisition and a settlement sent twice count once', async () => {
        const store = target.create();
        const scopes = chain({ limitNanoUsd: 100 });
        const request = lease(scopes, 40);
        expect(await store.acquire(request)).toMatchObject({ granted: true });
        expect(await store.acquire(request)).toMatchObject({ granted: true });
        expect(await store.settle(request.leaseId, scopes, { actualNanoUsd: 25 })).toBe(true);
        expect(await store.settle(request.leaseId, scopes, { actualNanoUsd: 25 })).toBe(true);
        expect(await store.acquire(request)).toMatchObject({ granted: false, reason: 'ended' });
        expect(plain(await store.counters(scopes))[0]).toEqual(zero({ spentNanoUsd: 25 }));
      });

      it('renews live leases only; a lease that expired counts at its worst case, unsettled, until settled', async () => {
        const store = target.create();
        const scopes = chain({ limitNanoUsd: 100 });
        const live = lease(scopes, 10);
        const short = lease(scopes, 30, 40);
        await store.acquire(live);
        await store.acquire(short);
        await new Promise((resolve) => setTimeout(resolve, 120));
        expect(
          await store.renew(
            [
              { leaseId: live.leaseId, scopes },
              { leaseId: short.leaseId, scopes },
            ],
            30_000,
          ),
        ).toEqual([short.leaseId]);
        expect(plain(await store.counters(scopes))[0]).toEqual(
          zero({
            spentNanoUsd: 30,
            reservedNanoUsd: 10,
            inFlight: 1,
            unsettledNanoUsd: 30,
            unsettledCalls: 1,
          }),
        );
        expect(await store.settle(short.leaseId, scopes, { actualNanoUsd: 12 })).toBe(false);
        expect(plain(await store.counters(scopes))[0]).toEqual(
          zero({ spentNanoUsd: 12, reservedNanoUsd: 10, inFlight: 1 }),
        );
      });

      it('never hands out more than the limit or the slots to concurrent acquisitions, from any number of connections', async () => {
        const stores = Array.from({ length: target.shared ? 4 : 1 }, () => target.create());
        const scopes = chain({ limitNanoUsd: 300, maxInFlight: 16 });
        const results = await Promise.all(
          Array.from({ length: 64 }, (_, index) =>
            (stores[index % stores.length] as BudgetStore).acquire(lease(scopes, 10)),
          ),
        );
        const granted = results.filter((result) => result.granted).length;
        expect(granted).toBe(16);
        const [root] = plain(await (stores[0] as BudgetStore).counters(scopes));
        expect(root).toEqual(zero({ reservedNanoUsd: 160, inFlight: 16 }));
      });
    });

    if (target.crash !== undefined) {
      const crash = target.crash.bind(target);
      describe('a crash of the server', () => {
        it(
          target.durable === true
            ? 'refuses while it is down and keeps every settled amount and held lease through the restart'
            : 'refuses while it is down',
          async () => {
            const store = target.create();
            const scopes = chain({ limitNanoUsd: 1000 });
            const settled = lease(scopes, 100);
            const held = lease(scopes, 200);
            await store.acquire(settled);
            await store.settle(settled.leaseId, scopes, { actualNanoUsd: 70 });
            await store.acquire(held);
            await crash(async () => {
              await expect(Promise.resolve().then(() => store.acquire(lease(scopes, 1)))).rejects.toThrow();
            });
            if (target.durable !== true) return;
            // Retried until the server answers again.
            let counters: ScopeCounters[] | null = null;
            for (let tries = 0; counters === null && tries < 100; tries++) {
              counters = await Promise.resolve(store.counters(scopes)).catch(async () => {
                await new Promise((resolve) => setTimeout(resolve, 100));
                return null;
              });
            }
            expect(plain(counters ?? [])[0]).toEqual(
              zero({ spentNanoUsd: 70, reservedNanoUsd: 200, inFlight: 1 }),
            );
            expect(await store.settle(held.leaseId, scopes, { actualNanoUsd: 150 })).toBe(true);
            expect(plain(await store.counters(scopes))[0]).toEqual(zero({ spentNanoUsd: 220 }));
          },
        );
      });
    }

    if (target.processStore !== undefined) {
      const processStore = target.processStore.bind(target);
      describe('worker processes sharing the ledger', () => {
        it('8 processes × 64 calls, 4 at a time: never over the limit; the books equal what the workers settled', async () => {
          const scopes = chain({ limitNanoUsd: 8 * 64 * 5, maxInFlight: 12 }, { limitNanoUsd: 8 * 64 * 2 });
          const children: ChildProcess[] = [];
          const reports = Array.from({ length: 8 }, (_, index) => {
            const settings: KitWorkerSettings = {
              index,
              store: processStore(),
              scopes,
              calls: 64,
              concurrency: 4,
              maxAmount: 20,
            };
            const child = fork(workerPath, [JSON.stringify(settings)], {
              cwd: packageRoot,
              execArgv: ['--import', 'tsx'],
              stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
            });
            children.push(child);
            return new Promise<KitWorkerReport>((resolve, reject) => {
              child.on('message', (message) => {
                if (message !== 'ready') resolve(message as KitWorkerReport);
              });
              child.once('exit', (code) =>
                reject(new Error(`worker ${index} exited with ${code} before reporting`)),
              );
            });
          });
          await Promise.all(
            children.map((child) => new Promise<void>((resolve) => child.once('message', () => resolve()))),
          );
          for (const child of children) child.send('go');
          const done = await Promise.all(reports);
          const settled = done.reduce((sum, report) => sum + report.settledNanoUsd, 0);
          expect(done.reduce((sum, report) => sum + report.errors, 0)).toBe(0);
          // The limit stopped calls (spend, or reservations in flight).
          expect(
            done.reduce(
              (sum, report) => sum + (report.refused.spend ?? 0) + (report.refused.reserved ?? 0),
              0,
            ),
          ).toBeGreaterThan(0);
          const reader = target.create();
          const [root, child] = plain(await reader.counters(scopes));
          expect(root).toEqual(zero({ spentNanoUsd: settled }));
          expect(child).toEqual(zero({ spentNanoUsd: settled }));
          expect(settled).toBeLessThanOrEqual(8 * 64 * 2);
        });
      });
    }
  });
}
