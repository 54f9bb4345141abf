// Calendar windows on real stores: a real redis-server, a 3-node Redis Cluster and PostgreSQL decide
// the window by their own clock. Store level: windows a second long, around the store's own time
// (learned from its `window` refusal), so its clock passes a boundary while the test runs: the store
// refuses a window its clock has left, the new window starts at $0 with a call of the old one still in
// flight, and that call settles into its own window. Budget level: an hourly scope's usage and refusal.
import { Cluster } from 'ioredis';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createBudget } from '../src/budget.js';
import { BudgetError } from '../src/budget-error.js';
import type { BudgetStore } from '../src/budget-store.js';
import { PostgresBudgetStore } from '../src/postgres-store.js';
import { RedisBudgetStore } from '../src/redis-store.js';
import type { StoredScope } from '../src/scope-limits.js';
import { PAST_WINDOW_KEEP_MS, windowKey } from '../src/scope-windows.js';
import { windowBounds } from '../src/window-bounds.js';
import { attemptInfo, callRecord, DOLLAR_PER_OUTPUT_TOKEN } from './support/attempt-info.js';
import { startPostgres, type TestPostgres } from './support/start-postgres.js';
import { startRedis, type TestRedis } from './support/start-redis.js';
import { startRedisCluster, type TestRedisCluster } from './support/start-redis-cluster.js';
import { until } from './support/until.js';

interface Rig {
  readonly name: string;
  setUp(): Promise<void>;
  store(): BudgetStore;
  /** Milliseconds a windowed key lives for, when the store keys expire (Redis). */
  ttlOf?(key: string): Promise<number>;
  tearDown(): Promise<void>;
}

function redisRig(): Rig {
  let redis: TestRedis | null = null;
  let store: RedisBudgetStore | null = null;
  return {
    name: 'RedisBudgetStore',
    async setUp() {
      redis = await startRedis();
      store = new RedisBudgetStore({ url: redis.url, prefix: 'w:' });
    },
    store: () => store as RedisBudgetStore,
    async ttlOf(key) {
      const { Redis } = await import('ioredis');
      const client = new Redis((redis as TestRedis).url);
      try {
        return Number(await client.pttl(`w:${key}:state`));
      } finally {
        client.disconnect();
      }
    },
    async tearDown() {
      await store?.close();
      await redis?.stop();
    },
  };
}

function clusterRig(): Rig {
  let cluster: TestRedisCluster | null = null;
  let client: Cluster | null = null;
  let store: RedisBudgetStore | null = null;
  return {
    name: 'RedisBudgetStore on a 3-node Cluster',
    async setUp() {
      cluster = await startRedisCluster();
      client = new Cluster([...cluster.nodes]);
      store = new RedisBudgetStore({ client, prefix: 'w:' });
    },
    store: () => store as RedisBudgetStore,
    ttlOf: async (key) => Number(await (client as Cluster).pttl(`w:${key}:state`)),
    async tearDown() {
      client?.disconnect();
      await cluster?.stop();
    },
  };
}

function postgresRig(): Rig {
  let postgres: TestPostgres | null = null;
  let store: PostgresBudgetStore | null = null;
  return {
    name: 'PostgresBudgetStore',
    async setUp() {
      postgres = await startPostgres();
      store = new PostgresBudgetStore({ url: postgres.url, schema: 'windows' });
    },
    store: () => store as PostgresBudgetStore,
    async tearDown() {
      await store?.close();
      await postgres?.stop();
    },
  };
}

/** A scope of the root `{name}` whose key names the window `[startMs, endMs)`. */
function windowed(name: string, startMs: number, endMs: number, limitNanoUsd: number | null): StoredScope {
  return {
    key: windowKey(`{${name}}`, startMs),
    limitNanoUsd,
    maxInFlight: null,
    window: { startMs, endMs },
  };
}

/** The store's clock: its refusal of a window long past names its time. */
async function storeNow(store: BudgetStore): Promise<number> {
  const answer = await store.acquire({
    leaseId: `probe-${Math.random()}`,
    scopes: [windowed('probe', 0, 1, null)],
    amountNanoUsd: 0,
    ttlMs: 1000,
  });
  if (answer.granted || answer.reason !== 'window' || answer.nowMs === undefined) {
    throw new Error(`the store did not refuse a window long past: ${JSON.stringify(answer)}`);
  }
  return answer.nowMs;
}

describe.each([redisRig(), clusterRig(), postgresRig()])('calendar windows on $name', (rig) => {
  beforeAll(() => rig.setUp());
  afterAll(() => rig.tearDown());

  it("decides by the store's clock: a window it left is refused, the next starts at $0, a late call settles into its own", async () => {
    const store = rig.store();
    const now = await storeNow(store);
    const first = windowed('boundary', now - 1000, now + 800, 10);
    const second = windowed('boundary', now + 800, now + 60_000, 10);
    const lease = { leaseId: 'late-call', scopes: [first], amountNanoUsd: 7, ttlMs: 60_000 };
    expect(await store.acquire(lease)).toMatchObject({ granted: true });
    // The store's clock passes the boundary (no sleep: its own time, asked again).
    await until(async () => (await storeNow(store)) >= now + 800, 'the store clock passes the boundary');
    const refused = await store.acquire({ ...lease, leaseId: 'too-late', scopes: [first] });
    expect(refused).toMatchObject({ granted: false, reason: 'window', scopeIndex: 0 });
    expect(!refused.granted && (refused.nowMs ?? 0) >= now + 800).toBe(true);
    // The new window starts at $0, whatever the old one holds in flight.
    expect(
      await store.acquire({ leaseId: 'next', scopes: [second], amountNanoUsd: 10, ttlMs: 60_000 }),
    ).toMatchObject({
      granted: true,
    });
    // The old window's call settles there, after the boundary.
    expect(await store.settle('late-call', [first], { actualNanoUsd: 5 })).toBe(true);
    const [old, current] = [...(await store.counters([first])), ...(await store.counters([second]))];
    expect(old).toMatchObject({ spentNanoUsd: 5, reservedNanoUsd: 0, inFlight: 0 });
    expect(current).toMatchObject({ spentNanoUsd: 0, reservedNanoUsd: 10, inFlight: 1 });
    if (rig.ttlOf !== undefined) {
      // Kept after the window's end, then gone on its own.
      const ttl = await rig.ttlOf(first.key);
      expect(ttl).toBeGreaterThan(PAST_WINDOW_KEEP_MS - 60_000);
      expect(ttl).toBeLessThanOrEqual(PAST_WINDOW_KEEP_MS);
      // A window whose every acquisition was refused (its ledger marker written all the same) expires too.
      const refusedOnly = windowed('refused-only', now - 1000, now + 60_000, 0);
      expect(
        await store.acquire({ leaseId: 'refused', scopes: [refusedOnly], amountNanoUsd: 1, ttlMs: 1000 }),
      ).toMatchObject({ granted: false, reason: 'spend' });
      expect(await rig.ttlOf(refusedOnly.key)).toBeGreaterThan(PAST_WINDOW_KEEP_MS - 60_000);
    }
  });

  it("a process whose clock is a day ahead reserves in the store's window, told by the store", async () => {
    const realNow = Date.now.bind(Date);
    // This process's clock (the one the budget guesses windows with) runs a day and an hour ahead.
    const ahead = vi.spyOn(Date, 'now').mockImplementation(() => realNow() + 25 * 3_600_000);
    try {
      const budget = createBudget({
        store: rig.store(),
        scope: { name: 'skewed', limitUsd: 3, window: 'day' },
        maxPricesOf: () => DOLLAR_PER_OUTPUT_TOKEN,
        onWarning: () => {},
      });
      await (await budget.beforeAttempt(attemptInfo({ maxTokens: 2 }))).end({
        record: callRecord(2),
        error: null,
        mayHaveBeenBilled: true,
      });
      const [usage] = await budget.usage();
      const storeDay = windowBounds({ period: 'day', timeZone: 'UTC' }, await storeNow(rig.store()));
      expect(usage).toMatchObject({ spentUsd: 2 });
      expect(usage?.window?.start).toBe(new Date(storeDay.startMs).toISOString());
      const [stored] = await rig
        .store()
        .counters([windowed('skewed', storeDay.startMs, storeDay.endMs, null)]);
      expect(stored?.spentNanoUsd).toBe(2_000_000_000);
    } finally {
      ahead.mockRestore();
    }
  });

  it('a spend refusal says when the window ends; usage() names the window of the store clock', async () => {
    const budget = createBudget({
      store: rig.store(),
      scope: { name: 'hourly', limitUsd: 3, window: 'hour' },
      maxPricesOf: () => DOLLAR_PER_OUTPUT_TOKEN,
      onWarning: () => {},
    });
    await (await budget.beforeAttempt(attemptInfo({ maxTokens: 2 }))).end({
      record: callRecord(2),
      error: null,
      mayHaveBeenBilled: true,
    });
    const refusal = await Promise.resolve(budget.beforeAttempt(attemptInfo({ maxTokens: 2 }))).catch(
      (error: unknown) => error,
    );
    expect(refusal).toBeInstanceOf(BudgetError);
    const now = await storeNow(rig.store());
    const hour = windowBounds({ period: 'hour', timeZone: 'UTC' }, now);
    const { retryAfterMs } = refusal as BudgetError;
    expect(retryAfterMs).not.toBeNull();
    expect(Math.abs((retryAfterMs as number) - (hour.endMs - now))).toBeLessThan(5000);
    const [usage] = await budget.usage();
    expect(usage).toMatchObject({ spentUsd: 2, reservedUsd: 0 });
    // Unless the hour turned meanwhile: then the new hour's.
    expect([new Date(hour.startMs).toISOString(), new Date(hour.endMs).toISOString()]).toContain(
      usage?.window?.start,
    );
  });
});

// Kept for the schema's sake: the PostgreSQL store lists its windows (budget_windows).
describe('PostgreSQL lists the windows it holds', () => {
  let postgres: TestPostgres | null = null;
  beforeAll(async () => {
    postgres = await startPostgres();
  });
  afterAll(() => postgres?.stop());

  it('a granted window is listed with its scope, start and end', async () => {
    const store = new PostgresBudgetStore({ url: (postgres as TestPostgres).url, schema: 'listed' });
    try {
      const now = await storeNow(store);
      const scope = windowed('listed', now - 1000, now + 60_000, null);
      expect(
        await store.acquire({ leaseId: 'l1', scopes: [scope], amountNanoUsd: 1, ttlMs: 10_000 }),
      ).toMatchObject({
        granted: true,
      });
      const client = new pg.Client({ connectionString: (postgres as TestPostgres).url });
      await client.connect();
      try {
        const { rows } = await client.query(
          'SELECT scope_key, window_key, (extract(epoch FROM end_at) * 1000)::bigint AS end_ms FROM listed.budget_windows',
        );
        expect(rows).toEqual([
          { scope_key: '{listed}', window_key: scope.key, end_ms: String(now + 60_000) },
        ]);
      } finally {
        await client.end();
      }
    } finally {
      await store.close();
    }
  });
});
