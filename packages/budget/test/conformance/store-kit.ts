// The conformance kit: what every BudgetStore must do, as one function any store's
// target runs through (`describeStoreConformance(target)`). The contract cases run
// for every store; the faults run for the stores that have them: peers (several
// connections to one ledger), a crash of the server (SIGKILL, then a restart), and
// worker processes sharing the ledger. A third party's store (DynamoDB, Valkey…)
// adds a target and runs the same kit; see docs/budgets-reference.md, "Adding a store".
import { type ChildProcess, fork } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BudgetStore, ScopeCounters } from '../../src/budget-store.js';
import type { StoredScope } from '../../src/scope-limits.js';
import { scopeCounters, withoutLedgerLost } from '../support/scope-counters.js';
import { until } from '../support/until.js';
import { describeAllotmentsConformance } from './allotments-kit.js';
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
  /**
   * A store on the same ledger whose connection goes through a TCP proxy that can lose the reply to
   * the next acquisition or settlement: the command reaches the server, then the connection drops.
   */
  lossyStore?(): Promise<LossyStore>;
}

/** A store behind a proxy that loses replies (see {@link ConformanceTarget.lossyStore}). */
interface LossyStore {
  readonly store: BudgetStore;
  /** Arms the proxy for the next command of that operation; resolves once its reply was dropped. */
  loseReplyTo(operation: 'acquire' | 'settle'): Promise<void>;
  close(): Promise<void>;
}

/** `promise`, or a failure naming `what` after `ms`. */
function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not happen within ${ms} ms`)), ms);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

/**
 * `work` until it answers (a store reconnecting after a dropped connection, or a server restarting,
 * refuses meanwhile); its last error once a deadline generous for a loaded machine (60 s) passed.
 */
async function untilAnswered<T>(work: () => T | Promise<T>): Promise<T> {
  const deadline = performance.now() + 60_000;
  for (;;) {
    try {
      return await work();
    } catch (error) {
      if (performance.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

const workerPath = fileURLToPath(new URL('./kit-worker.ts', import.meta.url));
const packageRoot = fileURLToPath(new URL('../../', import.meta.url));

/** A worker process of the kit (`kit-worker.ts`), run with tsx, its output in this process's. */
function forkWorker(settings: KitWorkerSettings): ChildProcess {
  return fork(workerPath, [JSON.stringify(settings)], {
    cwd: packageRoot,
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
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
        expect(withoutLedgerLost(await store.counters(scopes))).toEqual([scopeCounters(), scopeCounters()]);
        expect(await store.acquire(lease(scopes, 50))).toMatchObject({ granted: true });
        expect(withoutLedgerLost(await store.counters(scopes))).toEqual([
          scopeCounters({ reservedNanoUsd: 50, inFlight: 1 }),
          scopeCounters({ reservedNanoUsd: 50, inFlight: 1 }),
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
        expect(withoutLedgerLost(await store.counters(scopes))[0]).toEqual(
          scopeCounters({ spentNanoUsd: 25 }),
        );
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
        expect(withoutLedgerLost(await store.counters(scopes))[0]).toEqual(
          scopeCounters({
            spentNanoUsd: 30,
            reservedNanoUsd: 10,
            inFlight: 1,
            unsettledNanoUsd: 30,
            unsettledCalls: 1,
          }),
        );
        expect(await store.settle(short.leaseId, scopes, { actualNanoUsd: 12 })).toBe(false);
        expect(withoutLedgerLost(await store.counters(scopes))[0]).toEqual(
          scopeCounters({ spentNanoUsd: 12, reservedNanoUsd: 10, inFlight: 1 }),
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
        const [root] = withoutLedgerLost(await (stores[0] as BudgetStore).counters(scopes));
        expect(root).toEqual(scopeCounters({ reservedNanoUsd: 160, inFlight: 16 }));
      });
    });

    describeAllotmentsConformance(target);

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
            const refused = lease(scopes, 1);
            let error: unknown = null;
            await crash(async () => {
              error = await Promise.resolve()
                .then(() => store.acquire(refused))
                .then(
                  () => null,
                  (caught: unknown) => caught,
                );
              expect(error).toBeInstanceOf(Error);
            });
            if (target.durable !== true) return;
            // Retried until the server answers again.
            let counters: ScopeCounters[] | null = await untilAnswered(() => store.counters(scopes));
            if ((error as { ranNothing?: unknown }).ranNothing !== true) {
              // The error did not say the acquisition surely ran nothing (a client may still send a command
              // it queued, once the server is back): released, as the budget does, counting nothing.
              await store.settle(refused.leaseId, scopes, { actualNanoUsd: 0 });
              counters = await store.counters(scopes);
            }
            expect(withoutLedgerLost(counters ?? [])[0]).toEqual(
              scopeCounters({ spentNanoUsd: 70, reservedNanoUsd: 200, inFlight: 1 }),
            );
            expect(await store.settle(held.leaseId, scopes, { actualNanoUsd: 150 })).toBe(true);
            expect(withoutLedgerLost(await store.counters(scopes))[0]).toEqual(
              scopeCounters({ spentNanoUsd: 220 }),
            );
          },
        );
      });
    }

    if (target.lossyStore !== undefined) {
      const lossyStore = target.lossyStore.bind(target);
      describe('replies lost with their connection', () => {
        it('an acquisition and a settlement whose replies were lost, re-sent: each counts once', async () => {
          const lossy = await lossyStore();
          try {
            const scopes = chain({ limitNanoUsd: 100 });
            // A first round trip, so the store is connected (and has loaded what it needs) before the losses.
            const warm = lease(scopes, 1);
            await lossy.store.acquire(warm);
            await lossy.store.settle(warm.leaseId, scopes, { actualNanoUsd: 0 });
            const reader = target.create();
            const request = lease(scopes, 40);
            // The command fails, or its client sends it again on a new connection by itself (ioredis does):
            // either way it ran once, and sent again it changes nothing.
            const lostGrant = lossy.loseReplyTo('acquire');
            const granted = await Promise.resolve()
              .then(() => lossy.store.acquire(request))
              .catch(() => null);
            await within(lostGrant, 60_000, 'the proxy losing the reply to the acquisition');
            expect(granted ?? { granted: true }).toMatchObject({ granted: true });
            expect(withoutLedgerLost(await reader.counters(scopes))[0]).toEqual(
              scopeCounters({ reservedNanoUsd: 40, inFlight: 1 }),
            );
            expect(await untilAnswered(() => lossy.store.acquire(request))).toMatchObject({ granted: true });
            expect(withoutLedgerLost(await reader.counters(scopes))[0]).toEqual(
              scopeCounters({ reservedNanoUsd: 40, inFlight: 1 }),
            );
            const lostSettlement = lossy.loseReplyTo('settle');
            const held = await Promise.resolve()
              .then(() => lossy.store.settle(request.leaseId, scopes, { actualNanoUsd: 25 }))
              .catch(() => null);
            await within(lostSettlement, 60_000, 'the proxy losing the reply to the settlement');
            expect(held ?? true).toBe(true);
            expect(withoutLedgerLost(await reader.counters(scopes))[0]).toEqual(
              scopeCounters({ spentNanoUsd: 25 }),
            );
            // Sent again: it answers as the first did (the lease was held) and counts nothing again.
            expect(
              await untilAnswered(() => lossy.store.settle(request.leaseId, scopes, { actualNanoUsd: 25 })),
            ).toBe(true);
            expect(withoutLedgerLost(await reader.counters(scopes))[0]).toEqual(
              scopeCounters({ spentNanoUsd: 25 }),
            );
          } finally {
            await lossy.close();
          }
        });
      });
    }

    if (target.processStore !== undefined) {
      const processStore = target.processStore.bind(target);
      describe('worker processes sharing the ledger', () => {
        it('a worker SIGKILLed holding leases: its reservations count until they expire, then at their worst case, unsettled', async () => {
          const scopes = chain({ limitNanoUsd: 1000, maxInFlight: 5 });
          const settings: KitWorkerSettings = {
            index: 0,
            store: processStore(),
            scopes,
            calls: 0,
            concurrency: 1,
            maxAmount: 30,
            hold: 3,
            holdTtlMs: 1500,
          };
          const child = forkWorker(settings);
          const held = await new Promise<string[]>((resolve, reject) => {
            child.on('message', (message) => {
              if (typeof message === 'object' && message !== null && 'held' in message)
                resolve((message as { held: string[] }).held);
            });
            child.once('exit', (code) =>
              reject(new Error(`the worker exited with ${code} before it held leases`)),
            );
          });
          const exited = new Promise((resolve) => child.once('exit', resolve));
          child.kill('SIGKILL');
          await exited;
          expect(held).toHaveLength(3);
          const reader = target.create();
          // At any moment, each of the killed worker's calls is counted: reserved (with its slot) while its
          // lease lives, at its worst case (unsettled) once expired and swept.
          const [during] = withoutLedgerLost(await reader.counters(scopes)) as [ScopeCounters];
          expect(during.reservedNanoUsd + during.spentNanoUsd).toBe(90);
          expect(during.inFlight + during.unsettledCalls).toBe(3);
          // Once expired, whoever touches the scope next counts them at their worst case, unsettled.
          await until(
            async () => withoutLedgerLost(await reader.counters(scopes))[0]?.inFlight === 0,
            "the killed worker's leases expiring",
            { everyMs: 100 },
          );
          expect(withoutLedgerLost(await reader.counters(scopes))).toEqual([
            scopeCounters({ spentNanoUsd: 90, unsettledNanoUsd: 90, unsettledCalls: 3 }),
            scopeCounters({ spentNanoUsd: 90, unsettledNanoUsd: 90, unsettledCalls: 3 }),
          ]);
          // A late settlement of one of them (its worker's queue, written after a restart) replaces its worst case.
          expect(await reader.settle(held[0] as string, scopes, { actualNanoUsd: 12 })).toBe(false);
          expect(withoutLedgerLost(await reader.counters(scopes))[0]).toEqual(
            scopeCounters({ spentNanoUsd: 72, unsettledNanoUsd: 60, unsettledCalls: 2 }),
          );
        });

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
            const child = forkWorker(settings);
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
          const [root, child] = withoutLedgerLost(await reader.counters(scopes));
          expect(root).toEqual(scopeCounters({ spentNanoUsd: settled }));
          expect(child).toEqual(scopeCounters({ spentNanoUsd: settled }));
          expect(settled).toBeLessThanOrEqual(8 * 64 * 2);
        });
      });
    }
  });
}
