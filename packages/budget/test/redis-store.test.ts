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
          expect.stringMatching(/^layout:\{run-7\}:lease:[0-9a-f-]{36}$/),
          'layout:{run-7}:leases',
          'layout:{run-7}:state',
        ]);
        const state = await client.hgetall('layout:{run-7}/judge:state');
        expect(Object.keys(state).sort()).toEqual([
          'ledger',
          expect.stringMatching(/^r:/),
          'reserved',
          'unsettledFrom',
        ]);
        expect(state.reserved).toBe('2000000000');
        await handle.end({ record: callRecord(0.123456789), error: null, mayHaveBeenBilled: true });
        expect(await client.hgetall('layout:{run-7}:state')).toEqual({
          ledger: expect.any(String),
          reserved: '0',
          spent: '123456789',
          unsettledFrom: expect.stringMatching(/^\d+$/),
        });
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
      expect(
        await store.acquire({ leaseId: 'lease-1', scopes, amountNanoUsd: 50, ttlMs: 10_000 }),
      ).toMatchObject({
        granted: true,
      });
      expect(await store.settle('lease-1', scopes, { actualNanoUsd: 30 })).toBe(true);
      expect(await store.settle('lease-1', scopes, { actualNanoUsd: 30 })).toBe(true);
      expect(await store.counters(scopes)).toEqual([
        {
          spentNanoUsd: 30,
          reservedNanoUsd: 0,
          inFlight: 0,
          unsettledNanoUsd: 0,
          unsettledCalls: 0,
          ledgerLost: false,
        },
      ]);
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
      const error = await Promise.resolve(budget.beforeAttempt(attemptInfo({ maxTokens: 1 }))).catch(
        (caught: unknown) => caught,
      );
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

    it('falls back, when the code opts in, within a share of what was left when Redis last answered, and writes that spend back once', async () => {
      const live = await startRedis();
      const store = new RedisBudgetStore({ url: live.url, commandTimeoutMs: 500 });
      const fallback = new MemoryBudgetStore();
      const warnings: string[] = [];
      const budget = createBudget({
        store,
        scope: { name: 'run-9', limitUsd: 10, maxInFlight: 8 },
        maxPricesOf: () => DOLLAR_PER_OUTPUT_TOKEN,
        fallback: { store: fallback, share: 0.5 },
        slotWaitMs: 0,
        onWarning: (message) => warnings.push(message),
      });
      const seen = await budget.beforeAttempt(attemptInfo({ maxTokens: 2 }));
      await seen.end({ record: callRecord(2), error: null, mayHaveBeenBilled: true });
      // Redis last said (granting the first lease): 2 reserved of 10, so 8 left, half of it for this process.
      await live.stop();
      const handle = await budget.beforeAttempt(attemptInfo({ maxTokens: 3 }));
      // 2 more would fit the share once the 3 held settle; slotWaitMs 0 waits for nothing.
      await expect(budget.beforeAttempt(attemptInfo({ maxTokens: 2 }))).rejects.toMatchObject({
        reason: 'reserved',
        limitUsd: 4,
      });
      await handle.end({ record: callRecord(1.5), error: null, mayHaveBeenBilled: true });
      expect(warnings[0]).toMatch(
        /^budget store unreachable \(Redis at 127\.0\.0\.1:\d+: .+\); using the fallback store$/,
      );
      const back = await startRedis({ port: live.port });
      try {
        // The outage's settlements wait for Redis, in order, and are then recorded.
        await budget.idle();
        // Redis came back empty (no persistence): the process that saw the ledger refuses.
        await expect(budget.beforeAttempt(attemptInfo({ maxTokens: 1 }))).rejects.toMatchObject({
          reason: 'ledger_lost',
          scope: 'run-9',
        });
        await budget.resetLedger();
        // The outage's spend was written back exactly once.
        expect((await budget.usage())[0]).toMatchObject({ spentUsd: 1.5, reservedUsd: 0, inFlight: 0 });
      } finally {
        await budget.close({ timeoutMs: 1000 });
        await store.close();
        await back.stop();
      }
    });

    it('refuses without a fallback share when Redis never answered this process', async () => {
      const store = await deadStore();
      const budget = createBudget({
        store,
        scope: { name: 'run-11', limitUsd: 10 },
        maxPricesOf: () => DOLLAR_PER_OUTPUT_TOKEN,
        fallback: {},
        onWarning: () => {},
      });
      await expect(budget.beforeAttempt(attemptInfo({ maxTokens: 1 }))).rejects.toMatchObject({
        reason: 'store_unreachable',
        message: expect.stringMatching(
          /connection refused \(ECONNREFUSED\).*the fallback cannot tell what is left/,
        ),
      });
      await budget.close({ timeoutMs: 0 });
      await store.close();
    });
  });

  describe('options', () => {
    it('names the bad option', () => {
      expect(() => new RedisBudgetStore({})).toThrow(
        'RedisBudgetStore needs options.client (an ioredis client) or options.url',
      );
      expect(() => new RedisBudgetStore({ url: redis.url, prefix: 'a{b}:' })).toThrow(
        "options.prefix must be a string without '{', '}' or control characters",
      );
    });
  });
});
