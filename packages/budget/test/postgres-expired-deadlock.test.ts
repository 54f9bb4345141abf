// Leases that expire before they are settled never deadlock the PostgreSQL store (issue 42). After a stall
// (a server or a fleet paused past the lease TTL), sweeps are due everywhere: an acquisition's sweep locks a
// chain's scope rows, then the expired lease rows; a settlement that marks thresholds holds its lease's rows,
// then the chain's threshold rows. Version 8's threshold mark swept too (scope rows, while holding the threshold
// rows and, in a settlement, the lease's rows): a cycle, and the fleet stalled on deadlocks and lock waits for
// minutes. Here every lease expires at once (a TTL of 1 ms) while three stores acquire, settle with marks and
// mark thresholds, 12 lanes at a time: no deadlock, and every settlement counts once.
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { PostgresBudgetStore } from '../src/postgres-store.js';
import type { StoredScope } from '../src/scope-limits.js';
import { deadlocks } from './support/deadlocks.js';
import { startPostgres, type TestPostgres } from './support/start-postgres.js';

const ROOT: StoredScope = { key: '{ex-root}', limitNanoUsd: 1_000_000_000, maxInFlight: null };
const ROLE: StoredScope = { key: '{ex-root}/role', limitNanoUsd: null, maxInFlight: null };
const LEASES = 400;
const STORES = 3;
const LANES_PER_STORE = 4;
/** Threshold levels of the root (nano-dollars): low, so marks are raised while the lanes run. */
const LEVELS = [[10_000, 100_000, 300_000], null];

let postgres: TestPostgres;
beforeAll(async () => {
  postgres = await startPostgres();
});
afterAll(() => postgres?.stop());

it(`${LEASES} leases expired before their settlements, settled with their marks while others acquire and mark: no deadlock, each counted once`, async () => {
  const stores = Array.from(
    { length: STORES },
    () => new PostgresBudgetStore({ url: postgres.url, schema: 'expiring' }),
  );
  const admin = new pg.Client({ connectionString: postgres.url });
  await admin.connect();
  const chain = [ROOT, ROLE];
  let next = 0;
  let settled = 0;
  let marked = 0;
  try {
    await stores[0]?.migrate();
    const before = await deadlocks(admin);
    const lane = async (store: PostgresBudgetStore) => {
      while (next < LEASES) {
        next += 1;
        const leaseId = randomUUID();
        const result = await store.acquire({ leaseId, scopes: chain, amountNanoUsd: 5_000, ttlMs: 1 });
        expect(result.granted).toBe(true);
        const actual = 1 + Math.floor(Math.random() * 4_000);
        await store.settleAndMark(leaseId, chain, { actualNanoUsd: actual, leased: true }, LEVELS);
        settled += actual;
      }
    };
    const marker = async (store: PostgresBudgetStore) => {
      while (next < LEASES) {
        await store.markThresholds(chain, LEVELS);
        marked += 1;
      }
    };
    await Promise.all(
      stores.flatMap((store) => [
        ...Array.from({ length: LANES_PER_STORE }, () => lane(store)),
        marker(store),
      ]),
    );
    expect(marked).toBeGreaterThan(0);
    expect((await deadlocks(admin)) - before).toBe(0);
    const [root, role] = (await stores[0]?.counters(chain)) ?? [];
    const exact = {
      spentNanoUsd: settled,
      reservedNanoUsd: 0,
      inFlight: 0,
      unsettledNanoUsd: 0,
      unsettledCalls: 0,
    };
    expect(root).toEqual(exact);
    expect(role).toEqual(exact);
    // Every level the spend passed was marked, once.
    expect((await stores[0]?.markThresholds(chain, LEVELS))?.[0]).toMatchObject({ from: 3, to: 3 });
  } finally {
    await admin.end();
    await Promise.all(stores.map((store) => store.close()));
  }
}, 120_000);
