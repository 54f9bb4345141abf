import { describe, expect, it } from 'vitest';
import { ACQUIRE_SCRIPT } from '../../src/redis-scripts.js';
import { scriptSha } from '../support/redis-proxy.js';
import { ChaosRig, type DoneReport, sleep, total } from './chaos-rig.js';

// Worker processes share one budget on a real redis-server through ChatAdapter +
// OpenAITransport against the emulator, while Redis crashes, goes away, loses a
// reply, or a worker is killed. After each run the books are checked against what
// the emulator billed.

const WORKERS = 3;
const MAX_IN_FLIGHT = 8;
const LIMIT_USD = 0.006;
const LIMIT_NANO = LIMIT_USD * 1e9;

function rootScope(name: string) {
  return { name, limitUsd: LIMIT_USD, maxInFlight: MAX_IN_FLIGHT };
}

/**
 * What must hold after any run: nothing billed over the limit; nothing left
 * reserved or in flight; the store's spend is the sum of the settled records plus
 * the unsettled worst cases, and what was billed lies between the two; the proxy
 * never saw more calls in flight than the limit, plus, through an outage, the
 * slots the workers' fallbacks were given (each its share of the free slots as it
 * last heard from Redis, which may have been taken since: docs/budgets-reference.md,
 * "The bound").
 */
async function checkBooks(
  rig: ChaosRig,
  reports: readonly (DoneReport | null)[],
  options: { exact: boolean; killed?: number },
) {
  const { root, own, lost } = await rig.usage(WORKERS);
  expect(rig.http.billedNanoUsd).toBeLessThanOrEqual(LIMIT_NANO);
  expect(root).toMatchObject({ reservedNanoUsd: 0, inFlight: 0 });
  const fallbackSlots = total(reports, (report) => report.fallbackSlots);
  expect(rig.http.peakInFlight).toBeLessThanOrEqual(MAX_IN_FLIGHT + fallbackSlots);
  expect(rig.http.peakInFlight).toBeGreaterThan(1);
  if (!options.exact) return { root, own };
  // The ledger was kept: a reader started afterwards finds it.
  expect(lost, 'the ledger was lost').toBe(false);
  for (const [index, report] of reports.entries()) {
    if (index === options.killed) continue;
    expect(report, `worker ${index} finished`).not.toBeNull();
    expect(report?.flushed, `worker ${index} recorded every settlement`).toBe(true);
    const scope = own[index];
    // Its own scope: every record settled at its cost, anything else at a worst case, marked unsettled.
    expect(scope?.spentNanoUsd, `worker ${index}`).toBe(
      (report?.recordsNanoUsd ?? 0) + (scope?.unsettledUsd ?? 0) * 1e9,
    );
  }
  expect(root.spentNanoUsd).toBe(own.reduce((sum, scope) => sum + scope.spentNanoUsd, 0));
  const settled = root.spentNanoUsd - Math.round(root.unsettledUsd * 1e9);
  expect(settled).toBeLessThanOrEqual(rig.http.billedNanoUsd);
  expect(rig.http.billedNanoUsd).toBeLessThanOrEqual(root.spentNanoUsd);
  return { root, own };
}

async function withRig(name: string, persistence: boolean, run: (rig: ChaosRig) => Promise<void>) {
  const rig = await ChaosRig.start({ persistence, root: rootScope(name) });
  try {
    await run(rig);
  } finally {
    await rig.stop();
  }
}

/**
 * Resolves, with the workers that held a lease by then, once every worker was
 * granted one, or once two were and a second passed (slots freed in a process go
 * to its own waiters first, so a worker can wait long for its first); fails the
 * test if the workers finish first.
 */
function whenStarted() {
  const started = new Set<number>();
  let resolve: (workers: ReadonlySet<number>) => void = () => {};
  const promise = new Promise<ReadonlySet<number>>((done) => {
    resolve = done;
  });
  let timer: NodeJS.Timeout | undefined;
  return {
    until(finished: Promise<readonly (DoneReport | null)[]>): Promise<ReadonlySet<number>> {
      return Promise.race([
        promise,
        finished.then((reports): never => {
          const outcomes = reports.map(
            (report) => report && { refusals: report.refusals, failures: report.failures },
          );
          throw new Error(
            `the workers finished before the fault (${started.size} of ${WORKERS} had a lease): ${JSON.stringify(outcomes)}`,
          );
        }),
      ]).finally(() => clearTimeout(timer));
    },
    onProgress(index: number, report: { granted: number }) {
      if (report.granted < 1 || started.has(index)) return;
      started.add(index);
      if (started.size === WORKERS) resolve(new Set(started));
      else if (started.size === 2) timer = setTimeout(() => resolve(new Set(started)), 1000);
    },
  };
}

describe('a budget on Redis shared by worker processes, under faults', () => {
  it('(a) Redis SIGKILLed and restarted with persistence: the books hold exactly, nothing over the limit', async () => {
    await withRig('chaos-crash', true, async (rig) => {
      const started = whenStarted();
      const finished = rig.workers(WORKERS, {}, (index, report) => started.onProgress(index, report));
      await started.until(finished);
      await rig.crashRedis(300);
      const reports = await finished;
      expect(total(reports, (report) => report.refusals.ledger_lost ?? 0)).toBe(0);
      await checkBooks(rig, reports, { exact: true });
    });
  });

  it('(a) Redis SIGKILLed and restarted without persistence: every worker that saw the ledger reports ledger_lost', async () => {
    await withRig('chaos-amnesia', false, async (rig) => {
      const started = whenStarted();
      // Each worker starts no call past its first lease until Redis was crashed and is back, and a
      // call refused while Redis is away is made again: so every worker that saw the ledger still
      // calls once it is back, however fast or slow the machine (on a loaded one a worker could
      // otherwise spend the limit, or its calls, before the crash, or during the restart).
      const finished = rig.workers(
        WORKERS,
        { calls: 60, retryUnreachable: true, pauseAfterGrants: 1 },
        (index, report) => started.onProgress(index, report),
      );
      const sawLedger = await started.until(finished);
      await rig.crashRedis(300);
      rig.resumeWorkers();
      const reports = await finished;
      expect(sawLedger.size).toBeGreaterThanOrEqual(2);
      for (const index of sawLedger) {
        const report = reports[index];
        expect(
          report?.refusals.ledger_lost ?? 0,
          `worker ${index}: ${JSON.stringify(report)}`,
        ).toBeGreaterThan(0);
        expect(report?.refusalMessages.ledger_lost).toMatch(
          /^budget scope "chaos-amnesia" refused a call of primary-flash: its ledger in the store is gone/,
        );
      }
      await checkBooks(rig, reports, { exact: false });
    });
  });

  it('(b) Redis down for 3 s: calls are refused meanwhile, settlements wait and are recorded once', async () => {
    await withRig('chaos-outage', true, async (rig) => {
      const started = whenStarted();
      const finished = rig.workers(WORKERS, { calls: 60 }, (index, report) =>
        started.onProgress(index, report),
      );
      await started.until(finished);
      await rig.crashRedis(3000);
      const reports = await finished;
      expect(total(reports, (report) => report.refusals.store_unreachable ?? 0)).toBeGreaterThan(0);
      await checkBooks(rig, reports, { exact: true });
    });
  });

  it('(c) replies to reservations lost with their connection: no reservation leaks, nothing counts twice', async () => {
    await withRig('chaos-lost-reply', true, async (rig) => {
      const started = whenStarted();
      const finished = rig.workers(WORKERS, {}, (index, report) => started.onProgress(index, report));
      await started.until(finished);
      const sha = scriptSha(ACQUIRE_SCRIPT);
      for (let drop = 0; drop < 4; drop++) {
        await rig.redisProxy.dropReplyTo(sha);
        await sleep(100);
      }
      const reports = await finished;
      expect(rig.redisProxy.dropped).toBe(4);
      const { root } = await checkBooks(rig, reports, { exact: true });
      // A leaked reservation would have expired into an unsettled worst case.
      expect(root.unsettledCalls).toBe(0);
    });
  });

  it('(d) a worker SIGKILLed while holding leases: they count at their worst case, unsettled, and free their slots', async () => {
    await withRig('chaos-killed', true, async (rig) => {
      const killed = 0;
      // Worker 0 kills itself right after its 3rd lease was granted: it dies holding at least that one.
      // Fewer lanes than slots: no worker waits for a slot, so worker 0 gets its leases early.
      const reports = await rig.workers(WORKERS, { concurrency: 2 }, () => {}, new Map([[killed, 3]]));
      expect(reports[killed]).toBeNull();
      // Its leases lapse within their TTL.
      await sleep(2500);
      const { own } = await checkBooks(rig, reports, { exact: true, killed });
      expect(own[killed]?.unsettledCalls).toBeGreaterThanOrEqual(1);
    });
  });

  it('(e) the fallback through a 3 s outage spends only its share of what was left, and writes it back once', async () => {
    await withRig('chaos-fallback', true, async (rig) => {
      const started = whenStarted();
      const finished = rig.workers(WORKERS, { calls: 60, fallbackShare: 1 / WORKERS }, (index, report) =>
        started.onProgress(index, report),
      );
      await started.until(finished);
      await rig.crashRedis(3000);
      const reports = await finished;
      // The workers kept going on their fallback while Redis was away.
      expect(total(reports, (report) => report.fallbackUses)).toBeGreaterThan(0);
      // Each fallback was given at most its share (1/3) of the slots, per outage it served.
      for (const report of reports) {
        expect(report?.fallbackSlots).toBeLessThanOrEqual(
          Math.floor(MAX_IN_FLIGHT / WORKERS) * (report?.fallbackOutages ?? 0),
        );
      }
      await checkBooks(rig, reports, { exact: true });
    });
  });
});
