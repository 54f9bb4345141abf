// Thresholds: onThreshold once per scope, window and threshold, whoever settles. On the memory store
// with a moved clock (each window fires again; a jump over several fires each; a throwing callback
// never breaks a call), and on real stores (redis-server, a 3-node Cluster, PostgreSQL) with 6
// budgets on 6 store clients of their own settling at once: each threshold fires exactly once in all.
import { Cluster } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Budget, createBudget } from '../src/budget.js';
import type { BudgetStore } from '../src/budget-store.js';
import { PostgresBudgetStore } from '../src/postgres-store.js';
import { RedisBudgetStore } from '../src/redis-store.js';
import type { BudgetThresholdEvent } from '../src/thresholds.js';
import { attemptInfo, callRecord, DOLLAR_PER_OUTPUT_TOKEN } from './support/attempt-info.js';
import { startPostgres, type TestPostgres } from './support/start-postgres.js';
import { startRedis, type TestRedis } from './support/start-redis.js';
import { startRedisCluster, type TestRedisCluster } from './support/start-redis-cluster.js';
import { until } from './support/until.js';

async function spend(budget: Budget, usd: number, role: string | null = null): Promise<void> {
  const handle = await budget.beforeAttempt(attemptInfo({ maxTokens: Math.ceil(usd), role }));
  await handle.end({ record: callRecord(usd), error: null, mayHaveBeenBilled: true });
}

describe('thresholds on the memory store', () => {
  it('fires each threshold once per window, each of several passed by one call, with the figures', async () => {
    let now = Date.parse('2026-11-28T12:00:00Z');
    const events: BudgetThresholdEvent[] = [];
    const budget = createBudget({
      scope: { name: 'svc', limitUsd: 10, window: 'day' },
      roles: { judge: { limitUsd: 2 } },
      thresholds: [1, 0.5, 0.8],
      onThreshold: (event) => events.push(event),
      maxPricesOf: () => DOLLAR_PER_OUTPUT_TOKEN,
      clock: () => now,
    });
    await spend(budget, 4);
    expect(events).toEqual([]);
    // 4 + 4.5 = 8.5 of 10: 0.5 and 0.8 at once.
    await spend(budget, 4.5);
    const day = { start: '2026-11-28T00:00:00.000Z', end: '2026-11-29T00:00:00.000Z' };
    expect(events).toEqual([
      { scope: 'svc', fraction: 0.5, spentUsd: 8.5, limitUsd: 10, window: day },
      { scope: 'svc', fraction: 0.8, spentUsd: 8.5, limitUsd: 10, window: day },
    ]);
    await spend(budget, 0.5, 'judge');
    expect(events).toHaveLength(2);
    // The judge's scope (no window): 1 of 2 is its 0.5; the root's 9.5 of 10 passes nothing new.
    await spend(budget, 0.5, 'judge');
    expect(events.slice(2)).toEqual([
      { scope: 'svc/judge', fraction: 0.5, spentUsd: 1, limitUsd: 2, window: null },
    ]);
    // A new day: its own thresholds.
    now = Date.parse('2026-11-29T00:00:01Z');
    await spend(budget, 10);
    expect(events.slice(3).map((event) => [event.scope, event.fraction, event.window?.start])).toEqual([
      ['svc', 0.5, '2026-11-29T00:00:00.000Z'],
      ['svc', 0.8, '2026-11-29T00:00:00.000Z'],
      ['svc', 1, '2026-11-29T00:00:00.000Z'],
    ]);
  });

  it('an onThreshold that throws is a warning, never the call’s failure', async () => {
    const warnings: string[] = [];
    const budget = createBudget({
      scope: { name: 'svc', limitUsd: 2 },
      onThreshold: () => {
        throw new Error('pager down');
      },
      onWarning: (message) => warnings.push(message),
      maxPricesOf: () => DOLLAR_PER_OUTPUT_TOKEN,
    });
    await spend(budget, 2);
    // Both thresholds (0.8 and 1) reached by the one call: each call of onThreshold threw.
    expect(warnings).toEqual([
      'onThreshold threw (pager down); the call goes on',
      'onThreshold threw (pager down); the call goes on',
    ]);
    expect((await budget.usage())[0]?.spentUsd).toBe(2);
  });

  it('refuses bad thresholds naming the field', () => {
    expect(() => createBudget({ scope: { name: 's' }, thresholds: [0.8, 1.5] })).toThrow(
      /thresholds\[1\] must be a fraction of a limit in \(0, 1\], got 1.5/,
    );
    expect(() => createBudget({ scope: { name: 's' }, onThreshold: 'page' as never })).toThrow(
      /onThreshold must be a function/,
    );
  });
});

interface Shared {
  readonly name: string;
  setUp(): Promise<void>;
  /** A store client of its own, as another process has. */
  client(): BudgetStore;
  tearDown(): Promise<void>;
}

function redisShared(): Shared {
  let redis: TestRedis | null = null;
  const stores: RedisBudgetStore[] = [];
  return {
    name: 'redis-server',
    setUp: async () => {
      redis = await startRedis();
    },
    client() {
      const store = new RedisBudgetStore({ url: (redis as TestRedis).url });
      stores.push(store);
      return store;
    },
    async tearDown() {
      await Promise.all(stores.map((store) => store.close()));
      await redis?.stop();
    },
  };
}

function clusterShared(): Shared {
  let cluster: TestRedisCluster | null = null;
  const clients: Cluster[] = [];
  return {
    name: 'a 3-node Redis Cluster',
    setUp: async () => {
      cluster = await startRedisCluster();
    },
    client() {
      const client = new Cluster([...(cluster as TestRedisCluster).nodes]);
      clients.push(client);
      return new RedisBudgetStore({ client });
    },
    async tearDown() {
      for (const client of clients) client.disconnect();
      await cluster?.stop();
    },
  };
}

function postgresShared(): Shared {
  let postgres: TestPostgres | null = null;
  const stores: PostgresBudgetStore[] = [];
  return {
    name: 'PostgreSQL',
    setUp: async () => {
      postgres = await startPostgres();
    },
    client() {
      const store = new PostgresBudgetStore({ url: (postgres as TestPostgres).url });
      stores.push(store);
      return store;
    },
    async tearDown() {
      await Promise.all(stores.map((store) => store.close()));
      await postgres?.stop();
    },
  };
}

describe.each([redisShared(), clusterShared(), postgresShared()])('thresholds on $name', (shared) => {
  beforeAll(() => shared.setUp());
  afterAll(() => shared.tearDown());

  it('a threshold reached by a lease that expired (no settlement) fires at the next grant', async () => {
    const store = shared.client();
    const events: BudgetThresholdEvent[] = [];
    const budget = createBudget({
      store,
      scope: { name: 'expiring', limitUsd: 10 },
      thresholds: [0.5],
      onThreshold: (event) => events.push(event),
      maxPricesOf: () => DOLLAR_PER_OUTPUT_TOKEN,
      onWarning: () => {},
    });
    // A process that died holding $6: its lease expires, counted at its worst case, with no settlement.
    const root = { key: '{expiring}', limitNanoUsd: null, maxInFlight: null };
    await store.acquire({ leaseId: 'dead', scopes: [root], amountNanoUsd: 6_000_000_000, ttlMs: 50 });
    await until(async () => (await store.counters([root]))[0]?.inFlight === 0, 'the lease expires');
    const handle = await budget.beforeAttempt(attemptInfo({ maxTokens: 1 }));
    await budget.idle();
    expect(events).toEqual([{ scope: 'expiring', fraction: 0.5, spentUsd: 6, limitUsd: 10, window: null }]);
    await handle.end({ record: callRecord(1), error: null, mayHaveBeenBilled: true });
    expect(events).toHaveLength(1);
  });

  it('6 budgets on their own clients, settling at once: each threshold fires exactly once in all', async () => {
    const events: BudgetThresholdEvent[] = [];
    const budgets = Array.from({ length: 6 }, () =>
      createBudget({
        store: shared.client(),
        scope: { name: 'fleet', limitUsd: 60, window: 'month' },
        roles: { judge: { limitUsd: 30, window: 'day' } },
        thresholds: [0.25, 0.5, 0.8, 1],
        onThreshold: (event) => events.push(event),
        maxPricesOf: () => DOLLAR_PER_OUTPUT_TOKEN,
        onWarning: () => {},
      }),
    );
    // 6 × 10 × $1 = $60, half of it the judge's: every threshold of both scopes is reached.
    await Promise.all(
      budgets.map(async (budget, worker) => {
        for (let call = 0; call < 10; call += 1)
          await spend(budget, 1, call % 2 === worker % 2 ? 'judge' : null);
      }),
    );
    await Promise.all(budgets.map((budget) => budget.idle()));
    const fired = events.map((event) => `${event.scope}@${event.fraction}`).sort();
    expect(fired).toEqual([
      'fleet/judge@0.25',
      'fleet/judge@0.5',
      'fleet/judge@0.8',
      'fleet/judge@1',
      'fleet@0.25',
      'fleet@0.5',
      'fleet@0.8',
      'fleet@1',
    ]);
    for (const event of events) {
      expect(event.spentUsd).toBeGreaterThanOrEqual(event.fraction * event.limitUsd);
      expect(event.window).not.toBeNull();
    }
    const usage = await (budgets[0] as Budget).usage('judge');
    expect(usage.map((scope) => scope.spentUsd)).toEqual([60, 30]);
  });
});
