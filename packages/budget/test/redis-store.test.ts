import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBudget } from '../src/budget.js';
import { MemoryBudgetStore } from '../src/memory-store.js';
import { RedisBudgetStore } from '../src/redis-store.js';
import { attemptInfo, callRecord, DOLLAR_PER_OUTPUT_TOKEN } from './support/attempt-info.js';
import { startRedis, type TestRedis } from './support/start-redis.js';

describe('RedisBudgetStore', () => {
  let redis: TestRedis;
  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(() => redis?.stop());

  describe('key layout', () => {
    it('keeps every scope of a root under the root name as hash tag, in integer nano-dollars', async () => {
      const store = new RedisBudgetStore({ url: redis.url, prefix: 'layout:' });
      const run = createBudget({
        store,
        scope: { name: 'run-7', limitUsd: 10 },
        maxPricesOf: () => DOLLAR_PER_OUTPUT_TOKEN,
      });
      const judge = run.child({ name: 'judge', limitUsd: 5 });
      const handle = await judge.beforeAttempt(attemptInfo({ maxTokens: 2 }));
      const client = new Redis(redis.url);
      try {
        expect((await client.keys('layout:*')).sort()).toEqual([
          'layout:{run-7}/judge:leases',
          'layout:{run-7}/judge:state',
          'layout:{run-7}:leases',
          'layout:{run-7}:state',
        ]);
        const state = await client.hgetall('layout:{run-7}/judge:state');
        expect(Object.keys(state).sort()).toEqual([expect.stringMatching(/^r:/), 'reserved']);
        expect(state.reserved).toBe('2000000000');
        await handle.end({ record: callRecord(0.123456789), error: null });
        expect(await client.hgetall('layout:{run-7}:state')).toEqual({ reserved: '0', spent: '123456789' });
        expect(await client.zcard('layout:{run-7}:leases')).toBe(0);
      } finally {
        client.disconnect();
        run.close();
        await store.close();
      }
    });
  });

  describe('settlement', () => {
    it('counts a lease settled twice once: a retry whose first try reached Redis adds nothing', async () => {
      const store = new RedisBudgetStore({ url: redis.url, prefix: 'twice:' });
      const scopes = [{ key: '{run-10}', limitNanoUsd: 100, maxInFlight: null }];
      expect(await store.acquire({ leaseId: 'lease-1', scopes, amountNanoUsd: 50, ttlMs: 10_000 })).toEqual({
        granted: true,
      });
      expect(await store.settle('lease-1', scopes, 30)).toBe(true);
      expect(await store.settle('lease-1', scopes, 30)).toBe(true);
      expect(await store.counters(scopes)).toEqual([{ spentNanoUsd: 30, reservedNanoUsd: 0, inFlight: 0 }]);
      await store.close();
    });
  });

  describe('when Redis is unreachable', () => {
    async function deadStore(): Promise<RedisBudgetStore> {
      const stopped = await startRedis();
      await stopped.stop();
      return new RedisBudgetStore({ url: stopped.url, commandTimeoutMs: 500 });
    }

    it('refuses the call with a clear error naming the scope, by default', async () => {
      const store = await deadStore();
      const budget = createBudget({
        store,
        scope: { name: 'run-8', limitUsd: 1 },
        maxPricesOf: () => DOLLAR_PER_OUTPUT_TOKEN,
      });
      const error = await budget
        .beforeAttempt(attemptInfo({ maxTokens: 1 }))
        .catch((caught: unknown) => caught);
      expect(error).toMatchObject({
        kind: 'budget',
        reason: 'store_unreachable',
        scope: 'run-8',
        retryable: false,
      });
      expect((error as Error).message).toMatch(
        /^budget scope "run-8" refused the call: its store could not be reached \(.+\); calls are refused until it answers, unless the budget has a fallback$/,
      );
      await store.close();
    });

    it('falls back to a per-process store with a share of each limit only when the code opts in', async () => {
      const store = await deadStore();
      const fallback = new MemoryBudgetStore();
      const warnings: string[] = [];
      const budget = createBudget({
        store,
        scope: { name: 'run-9', limitUsd: 4, maxInFlight: 8 },
        maxPricesOf: () => DOLLAR_PER_OUTPUT_TOKEN,
        fallback: { store: fallback, share: 0.5 },
        slotWaitMs: 0,
        onWarning: (message) => warnings.push(message),
      });
      const handle = await budget.beforeAttempt(attemptInfo({ maxTokens: 2 }));
      await expect(budget.beforeAttempt(attemptInfo({ maxTokens: 1 }))).rejects.toMatchObject({
        reason: 'spend',
        limitUsd: 2,
      });
      await handle.end({ record: callRecord(1.5), error: null });
      expect(fallback.counters([{ key: '{run-9}', limitNanoUsd: null, maxInFlight: null }])).toEqual([
        { spentNanoUsd: 1_500_000_000, reservedNanoUsd: 0, inFlight: 0 },
      ]);
      expect(warnings[0]).toMatch(/^budget store unreachable \(.+\); using the fallback store$/);
      await store.close();
    });
  });

  describe('options', () => {
    it('names the bad option', () => {
      expect(() => new RedisBudgetStore({})).toThrow(
        'RedisBudgetStore needs options.client (an ioredis client) or options.url',
      );
      expect(() => new RedisBudgetStore({ url: redis.url, prefix: 'a{b}:' })).toThrow(
        "options.prefix must be a string without '{' or '}'",
      );
    });
  });
});
