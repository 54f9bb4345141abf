import { type AttemptOutcome, ChatError } from '@switchboard/adapter';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBudget } from '../src/budget.js';
import type { BudgetStore } from '../src/budget-store.js';
import { MemoryBudgetStore } from '../src/memory-store.js';
import { RedisBudgetStore } from '../src/redis-store.js';
import { PRUNE_BATCH } from '../src/retention.js';
import { attemptInfo, DOLLAR_PER_OUTPUT_TOKEN } from './support/attempt-info.js';
import { heapAfterGc } from './support/heap-after-gc.js';
import { startRedis, type TestRedis } from './support/start-redis.js';

// Issue 29, item 6: every call of unknown fate was kept forever (+25.9 MiB per 50,000 calls in
// memory, 50,005 hash fields in Redis). Its entry is now pruned after the store's retention by
// whichever operation next touches the scope; its amount stays in the scope's spend.

const CALLS = 50_000;
/** One call's worst case: 1 output token at $1. */
const WORST_NANO_USD = 1_000_000_000;
const unknownFate: AttemptOutcome = {
  record: null,
  error: new ChatError({ kind: 'timeout', message: 'no reply within 300 ms' }),
  mayHaveBeenBilled: true,
};
const MiB = 1024 * 1024;

function budgetOn(store: BudgetStore, name: string) {
  return createBudget({
    store,
    scope: { name, limitUsd: 1_000_000 },
    maxPricesOf: () => DOLLAR_PER_OUTPUT_TOKEN,
    onWarning: () => {},
  });
}

/** `count` calls of unknown fate, `lanes` at a time: each reserves its worst case and settles it unsettled. */
async function unknownFateCalls(
  budget: ReturnType<typeof budgetOn>,
  count: number,
  lanes = 1,
  between?: () => void,
): Promise<void> {
  let started = 0;
  const info = attemptInfo({ maxTokens: 1 });
  await Promise.all(
    Array.from({ length: lanes }, async () => {
      while (started < count) {
        started += 1;
        between?.();
        const handle = await budget.beforeAttempt(info);
        await handle.end(unknownFate);
      }
    }),
  );
  await budget.idle();
}

describe('unsettled entries are pruned after the retention, their amount kept (issue 29.6)', () => {
  let redis: TestRedis;
  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(() => redis?.stop());

  it(`MemoryBudgetStore: ${CALLS.toLocaleString('en')} unknown-fate calls keep a bounded heap, spend equal to the sum`, async () => {
    let clock = 0;
    // One millisecond per call, a 1 s retention: about 1,000 entries are young enough to keep.
    const store = new MemoryBudgetStore({ now: () => clock, retentionMs: 1000 });
    const budget = budgetOn(store, 'run-unknown');
    const tick = () => {
      clock += 1;
    };
    // Warm-up: code compiled, the store's memory of ended lease ids at its size (two generations of 10,000).
    const WARM_UP = 25_000;
    await unknownFateCalls(budget, WARM_UP, 1, tick);
    const before = await heapAfterGc();
    await unknownFateCalls(budget, CALLS, 1, tick);
    const after = await heapAfterGc();
    const growth = after - before;
    const usage = (await budget.usage())[0];
    console.log(
      `memory store: ${CALLS} unknown-fate calls grew the heap kept after gc by ${(growth / MiB).toFixed(2)} MiB; unsettledCalls ${usage?.unsettledCalls}, spent ${usage?.spentUsd} USD`,
    );
    expect(growth).toBeLessThan(4 * MiB);
    expect(usage).toMatchObject({
      spentNanoUsd: (WARM_UP + CALLS) * WORST_NANO_USD,
      unsettledUsd: WARM_UP + CALLS,
      unsettledCalls: WARM_UP + CALLS,
      reservedUsd: 0,
      inFlight: 0,
    });
    await budget.close();
  });

  it(`RedisBudgetStore: ${CALLS.toLocaleString('en')} unknown-fate calls keep the scope's hash bounded, spend equal to the sum`, async () => {
    const retentionMs = 200;
    const store = new RedisBudgetStore({ url: redis.url, prefix: 'bounded:', retentionMs });
    const budget = budgetOn(store, 'run-unknown');
    const admin = new Redis(redis.url);
    const state = 'bounded:{run-unknown}:state';
    const unsettledSet = 'bounded:{run-unknown}:unsettled';
    /** Redis's clock (the one entries are scored by), in ms. */
    const redisNow = async () => {
      const [seconds, micros] = await admin.time();
      return Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
    };
    /** Until Redis's clock is past `at`: an event on the store's clock, however fast this machine is. */
    const untilRedisPast = async (at: number) => {
      while ((await redisNow()) <= at) await new Promise((resolve) => setTimeout(resolve, 10));
    };
    const ROUND = CALLS / 10;
    let largest = 0;
    let fixedFields = 0;
    const started = Date.now();
    for (let round = 0; round < 10; round += 1) {
      await unknownFateCalls(budget, ROUND, 32);
      const fields = await admin.hlen(state);
      // Fields that are not an unsettled call's entry (the scope's figures): fixed in number.
      fixedFields = fields - (await admin.zcard(unsettledSet));
      largest = Math.max(largest, fields);
      // The earlier rounds' entries are past the retention before the next round starts: each of
      // its operations prunes up to PRUNE_BATCH of them, far more than there are.
      await untilRedisPast((await redisNow()) + retentionMs);
    }
    const seconds = (Date.now() - started) / 1000;
    // The retention elapsed: each next operation on the scope prunes up to PRUNE_BATCH of what is left.
    const left = await admin.zcard(unsettledSet);
    for (let touch = 0; touch <= Math.ceil(left / PRUNE_BATCH); touch += 1) await budget.usage();
    const fields = await admin.hlen(state);
    const entries = await admin.zcard(unsettledSet);
    const keys = await admin.dbsize();
    const usage = (await budget.usage())[0];
    console.log(
      `redis store: ${CALLS} unknown-fate calls in ${seconds.toFixed(1)} s with a ${retentionMs} ms retention: at most ${largest} hash fields during the run, ${fields} after the retention (${entries} unsettled entries, ${keys} keys); unsettledCalls ${usage?.unsettledCalls}, spent ${usage?.spentUsd} USD`,
    );
    // What the code guarantees, whatever the machine's speed: at most one round's entries (the
    // earlier rounds' were pruned), never all 50,000; none once the retention passed and the scope was touched.
    expect(fixedFields).toBeLessThan(16);
    expect(largest).toBeLessThanOrEqual(ROUND + fixedFields);
    expect(entries).toBe(0);
    expect(fields).toBe(fixedFields);
    expect(usage).toMatchObject({
      spentNanoUsd: CALLS * WORST_NANO_USD,
      unsettledUsd: CALLS,
      unsettledCalls: CALLS,
      reservedUsd: 0,
      inFlight: 0,
    });
    admin.disconnect();
    await budget.close();
    await store.close();
  });

  it('checks retentionMs when a store is made', () => {
    for (const bad of [0, -1, Number.NaN, Number.POSITIVE_INFINITY, '60000']) {
      expect(() => new MemoryBudgetStore({ retentionMs: bad as number })).toThrow(
        /^MemoryBudgetStore options\.retentionMs must be a number of milliseconds >= 1, got /,
      );
      expect(() => new RedisBudgetStore({ url: redis.url, retentionMs: bad as number })).toThrow(RangeError);
    }
  });

  describe.each([
    ['MemoryBudgetStore', () => new MemoryBudgetStore({ retentionMs: 50 })],
    [
      'RedisBudgetStore',
      () => new RedisBudgetStore({ url: redis.url, prefix: `late:${Math.random()}:`, retentionMs: 50 }),
    ],
  ] as const)('%s: a late settlement of a pruned lease', (_name, create) => {
    const chain = [
      { key: '{late}', limitNanoUsd: 1000, maxInFlight: null },
      { key: '{late}/child', limitNanoUsd: null, maxInFlight: null },
    ];
    const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
    const unsettled = { spentNanoUsd: 40, unsettledNanoUsd: 40, unsettledCalls: 1, reservedNanoUsd: 0 };

    it('of an expired lease changes nothing: it stays at its worst case, counted once', async () => {
      const store = create();
      await store.acquire({ leaseId: 'p', scopes: chain, amountNanoUsd: 40, ttlMs: 20 });
      await wait(40);
      expect((await store.counters(chain))[0]).toMatchObject(unsettled);
      await wait(80);
      await store.counters(chain); // prunes its entry
      expect(await store.settle('p', chain, { actualNanoUsd: 7, leased: true })).toBe(false);
      expect(await store.settle('p', chain, { actualNanoUsd: 7, leased: true })).toBe(false);
      for (const counters of await store.counters(chain)) expect(counters).toMatchObject(unsettled);
      await (store as { close?: () => Promise<void> }).close?.();
    });

    it('of a call settled unsettled, sent again once its record is gone too, changes nothing', async () => {
      const store = create();
      await store.acquire({ leaseId: 'q', scopes: chain, amountNanoUsd: 40, ttlMs: 10_000 });
      await store.settle('q', chain, { actualNanoUsd: 40, unsettled: true, leased: true });
      await wait(80);
      await store.counters(chain);
      await store.settle('q', chain, { actualNanoUsd: 40, unsettled: true, leased: true });
      for (const counters of await store.counters(chain)) expect(counters).toMatchObject(unsettled);
      await (store as { close?: () => Promise<void> }).close?.();
    });

    it('within the retention still replaces the worst case by the cost', async () => {
      const store = create();
      await store.acquire({ leaseId: 'r', scopes: chain, amountNanoUsd: 40, ttlMs: 20 });
      await wait(30);
      expect((await store.counters(chain))[0]).toMatchObject(unsettled);
      expect(await store.settle('r', chain, { actualNanoUsd: 7, leased: true })).toBe(false);
      for (const counters of await store.counters(chain)) {
        expect(counters).toMatchObject({ spentNanoUsd: 7, unsettledNanoUsd: 0, unsettledCalls: 0 });
      }
      await (store as { close?: () => Promise<void> }).close?.();
    });
  });
});
