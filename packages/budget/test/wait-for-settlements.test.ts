// A call blocked only by the reservations of calls in flight waits for them to settle
// (in order, up to slotWaitMs, ended by its signal or its deadline) instead of being
// refused; `spend` only when spent + its worst case passes the limit. On both stores.
import { ChatAdapter, ChatError, OpenAITransport } from '@switchboard/adapter';
import { type Emulator, startEmulator } from '@switchboard/emulator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Budget, type BudgetOptions, createBudget } from '../src/budget.js';
import type { BudgetError } from '../src/budget-error.js';
import type { BudgetStore } from '../src/budget-store.js';
import { RedisBudgetStore } from '../src/redis-store.js';
import { attemptInfo, callRecord, DOLLAR_PER_OUTPUT_TOKEN } from './support/attempt-info.js';
import { startRedis, type TestRedis } from './support/start-redis.js';
import { memoryStores, postgresStores, redisStores } from './support/store-factories.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Whether a promise has settled yet (after a turn of the event loop). */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  promise.then(
    () => {
      done = true;
    },
    () => {
      done = true;
    },
  );
  await sleep(5);
  return done;
}

const stores = [memoryStores(), redisStores(), postgresStores()];
describe.each(stores)('waiting for settlements on $name', (factory) => {
  beforeAll(() => factory.setUp());
  afterAll(() => factory.tearDown());

  let runs = 0;
  function budgetOn(store: BudgetStore, options: Partial<BudgetOptions> = {}): Budget {
    runs += 1;
    return createBudget({
      store,
      scope: { name: `wait-${runs}`, limitUsd: 10 },
      maxPricesOf: () => DOLLAR_PER_OUTPUT_TOKEN,
      onWarning: () => {},
      ...options,
    });
  }

  it('runs every one of 12 concurrent calls that the limit affords, where refusing would have run 3', async () => {
    // Worst case 3, actual cost 0.6 (a fifth, as for short answers): 12 × 0.6 = 7.2 fits a limit of 10.
    const budget = budgetOn(factory.create());
    const ran = await Promise.all(
      Array.from({ length: 12 }, async () => {
        const handle = await budget.beforeAttempt(attemptInfo({ maxTokens: 3 }));
        await sleep(2);
        await handle.end({ record: callRecord(0.6), error: null, mayHaveBeenBilled: true });
        return true;
      }),
    );
    expect(ran).toHaveLength(12);
    expect((await budget.usage())[0]).toMatchObject({
      spentNanoUsd: 7_200_000_000,
      reservedUsd: 0,
      inFlight: 0,
    });

    // The same with waitForSettlements: false refuses what the reservations block, as `reserved`.
    const eager = budgetOn(factory.create(), { waitForSettlements: false });
    // Every call is answered before any ends: a store slower to answer (PostgreSQL) must not see a settlement first.
    let answered = 0;
    let allAnswered: () => void = () => {};
    const everyAnswer = new Promise<void>((resolve) => {
      allAnswered = resolve;
    });
    const outcomes = await Promise.allSettled(
      Array.from({ length: 12 }, async () => {
        const handle = await Promise.resolve(eager.beforeAttempt(attemptInfo({ maxTokens: 3 }))).finally(
          () => {
            answered += 1;
            if (answered === 12) allAnswered();
          },
        );
        await everyAnswer;
        await handle.end({ record: callRecord(0.6), error: null, mayHaveBeenBilled: true });
      }),
    );
    const refused = outcomes.filter((outcome) => outcome.status === 'rejected');
    expect(refused).toHaveLength(9);
    for (const outcome of refused)
      expect(outcome.reason).toMatchObject({ kind: 'budget', reason: 'reserved' });
  });

  it('grants waiters in arrival order as settlements make room, and a newcomer queues behind them', async () => {
    const budget = budgetOn(factory.create());
    const holder = await budget.beforeAttempt(attemptInfo({ maxTokens: 8 }));
    const order: string[] = [];
    // 8 reserved of 10: the first waiter needs 3, the second only 1 but came later; both wait.
    const first = Promise.resolve(budget.beforeAttempt(attemptInfo({ maxTokens: 3 }))).then((handle) => {
      order.push('first');
      return handle;
    });
    await sleep(20);
    const second = Promise.resolve(budget.beforeAttempt(attemptInfo({ maxTokens: 1 }))).then((handle) => {
      order.push('second');
      return handle;
    });
    expect(await settled(first)).toBe(false);
    expect(await settled(second)).toBe(false);
    await holder.end({ record: callRecord(1), error: null, mayHaveBeenBilled: true });
    const handles = await Promise.all([first, second]);
    expect(order).toEqual(['first', 'second']);
    expect((await budget.usage())[0]).toMatchObject({ spentUsd: 1, reservedUsd: 4, inFlight: 2 });
    for (const handle of handles)
      await handle.end({ record: callRecord(0.5), error: null, mayHaveBeenBilled: true });
  });

  it('refuses a waiter for spend once the settlements leave no room for it, and one that can never fit at once', async () => {
    const budget = budgetOn(factory.create());
    const holder = await budget.beforeAttempt(attemptInfo({ maxTokens: 6 }));
    // 0 spent + 5 fits the limit of 10, but not beside the 6 held: it waits.
    const waiter = Promise.resolve(budget.beforeAttempt(attemptInfo({ maxTokens: 5 })));
    expect(await settled(waiter)).toBe(false);
    // 11 > 10 even with nothing in flight: refused at once, without waiting for the holder.
    await expect(budget.beforeAttempt(attemptInfo({ maxTokens: 11 }))).rejects.toMatchObject({
      reason: 'spend',
      spentUsd: 0,
      reservedUsd: 6,
    });
    await holder.end({ record: callRecord(6), error: null, mayHaveBeenBilled: true });
    // Now 6 spent + 5 > 10: the money is really gone.
    const error = (await waiter.catch((caught: unknown) => caught)) as BudgetError;
    expect(error).toMatchObject({
      kind: 'budget',
      reason: 'spend',
      spentUsd: 6,
      reservedUsd: 0,
      requestedUsd: 5,
    });
  });

  it('ends a wait at slotWaitMs (reserved), at the caller signal (aborted) and at the call deadline (timeout)', async () => {
    const budget = budgetOn(factory.create(), { slotWaitMs: 150 });
    const holder = await budget.beforeAttempt(attemptInfo({ maxTokens: 8 }));
    const started = performance.now();
    const waited = (await Promise.resolve(budget.beforeAttempt(attemptInfo({ maxTokens: 3 }))).catch(
      (caught: unknown) => caught,
    )) as BudgetError;
    expect(performance.now() - started).toBeGreaterThanOrEqual(140);
    expect(waited).toMatchObject({ kind: 'budget', reason: 'reserved', reservedUsd: 8, requestedUsd: 3 });
    expect(waited.message).toMatch(/not enough of them settled within 150 ms \(slotWaitMs\)$/);

    const controller = new AbortController();
    const aborted = Promise.resolve(
      budget.beforeAttempt(attemptInfo({ maxTokens: 3, signal: controller.signal })),
    );
    expect(await settled(aborted)).toBe(false);
    controller.abort();
    await expect(aborted).rejects.toMatchObject({ kind: 'aborted' });

    // The adapter's deadline signal aborts with a `timeout` ChatError: the wait ends as a timeout.
    const deadline = new AbortController();
    const timedOut = Promise.resolve(
      budget.beforeAttempt(attemptInfo({ maxTokens: 3, signal: deadline.signal })),
    );
    deadline.abort(
      new ChatError({ kind: 'timeout', message: 'the call passed its deadline of 0.1 s', retryable: true }),
    );
    const timeout = await timedOut.catch((caught: unknown) => caught);
    expect(ChatError.isInstance(timeout)).toBe(true);
    expect(timeout).toMatchObject({ kind: 'timeout' });
    expect((timeout as Error).message).toMatch(
      /passed its deadline before it was sent, while waiting for its budget/,
    );

    await holder.end({ record: callRecord(1), error: null, mayHaveBeenBilled: true });
    expect((await budget.usage())[0]).toMatchObject({ spentUsd: 1, reservedUsd: 0, inFlight: 0 });
  });

  it('16 callers looping until refused spend the limit: settled spend ≥ limit − one worst case, ≤ limit', async () => {
    const limit = 100;
    const worst = 5;
    const budget = budgetOn(factory.create(), { scope: { name: `fill-${runs}`, limitUsd: limit } });
    let seed = 7;
    const random = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
      return seed / 2_147_483_648;
    };
    let calls = 0;
    const endings = await Promise.all(
      Array.from({ length: 16 }, async () => {
        for (;;) {
          let handle: Awaited<ReturnType<Budget['beforeAttempt']>>;
          try {
            handle = await budget.beforeAttempt(attemptInfo({ maxTokens: worst }));
          } catch (error) {
            return (error as BudgetError).reason;
          }
          calls += 1;
          await sleep(1 + Math.floor(random() * 4));
          // 10% to 50% of the worst case, in whole nano-dollars.
          const cost = Math.round((0.1 + random() * 0.4) * worst * 1e6) / 1e6;
          await handle.end({ record: callRecord(cost), error: null, mayHaveBeenBilled: true });
        }
      }),
    );
    await budget.idle();
    const [scope] = await budget.usage();
    // Every caller stopped because the money was gone, never because calls were in flight.
    expect(endings).toEqual(Array.from({ length: 16 }, () => 'spend'));
    expect(scope?.spentUsd).toBeLessThanOrEqual(limit);
    expect(scope?.spentUsd).toBeGreaterThanOrEqual(limit - worst);
    expect(scope).toMatchObject({ reservedUsd: 0, inFlight: 0 });
    expect(calls).toBeGreaterThan(limit / worst / 0.5);
  });
});

describe('waiting on Redis across processes', () => {
  let redis: TestRedis;
  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(() => redis?.stop());

  it('a waiter is granted soon after a settlement made through another connection (another process)', async () => {
    const holderStore = new RedisBudgetStore({ url: redis.url, prefix: 'x:' });
    const waiterStore = new RedisBudgetStore({ url: redis.url, prefix: 'x:' });
    // The waiter's acquisitions started once the holder's settlement was recorded, and their answers.
    let settledAt: number | null = null;
    const afterSettlement: boolean[] = [];
    const acquire = waiterStore.acquire.bind(waiterStore);
    waiterStore.acquire = async (request) => {
      const startedAfter = settledAt !== null;
      const result = await acquire(request);
      if (startedAfter) afterSettlement.push(result.granted);
      return result;
    };
    const options = {
      scope: { name: 'shared', limitUsd: 10 },
      maxPricesOf: () => DOLLAR_PER_OUTPUT_TOKEN,
      onWarning: () => {},
    };
    const holderBudget = createBudget({ ...options, store: holderStore });
    const waiterBudget = createBudget({ ...options, store: waiterStore });
    try {
      const holder = await holderBudget.beforeAttempt(attemptInfo({ maxTokens: 8 }));
      const waiter = Promise.resolve(waiterBudget.beforeAttempt(attemptInfo({ maxTokens: 3 })));
      // Long enough for its polls to back off to their longest interval.
      await sleep(400);
      expect(await settled(waiter)).toBe(false);
      await holder.end({ record: callRecord(2), error: null, mayHaveBeenBilled: true });
      settledAt = performance.now();
      const handle = await waiter;
      // Found by the waiter's next poll, however slow the machine: the first acquisition it started
      // after the settlement was recorded is granted (none is refused after it). On a loaded machine a
      // poll can start while the holder's settlement is answered, after the store recorded it, and be
      // granted already: then none starts after it.
      expect(afterSettlement.length).toBeLessThanOrEqual(1);
      expect(afterSettlement.every((granted) => granted)).toBe(true);
      await handle.end({ record: callRecord(1), error: null, mayHaveBeenBilled: true });
      expect((await waiterBudget.usage())[0]).toMatchObject({ spentUsd: 3, reservedUsd: 0, inFlight: 0 });
    } finally {
      await holderBudget.close();
      await waiterBudget.close();
      await holderStore.close();
      await waiterStore.close();
    }
  });
});

describe('waiting through a ChatAdapter to the emulator', () => {
  const SLOT_WAIT_MS = 60_000;
  const KEY = 'sk-wait-test';
  let emulator: Emulator;
  beforeAll(async () => {
    emulator = await startEmulator({ key: KEY });
  });
  afterAll(() => emulator?.close());

  it("ends the wait at the call's deadlineSeconds, with nothing sent", async () => {
    const budget = createBudget({
      scope: { name: 'adapter-wait', limitUsd: 0.01 },
      slotWaitMs: SLOT_WAIT_MS,
      onWarning: () => {},
    });
    const adapter = new ChatAdapter(new OpenAITransport({ apiKey: KEY, baseUrl: emulator.url }), {
      observers: [budget],
    });
    // A hand-made lease holds most of the limit, as a long call in flight would.
    const holder = await budget.beforeAttempt({
      ...attemptInfo({ model: 'primary-flash', maxTokens: 7000 }),
    });
    const before = emulator.requests.length;
    const started = performance.now();
    const failure = await adapter
      .complete({
        model: 'primary-flash',
        messages: [{ role: 'user', content: 'Is the build green?' }],
        maxTokens: 1000,
        deadlineSeconds: 0.3,
      })
      .catch((caught: unknown) => caught);
    // Ended by its deadline, not by the budget's slot wait (SLOT_WAIT_MS) nor by the holder's end (after this).
    expect(performance.now() - started).toBeLessThan(SLOT_WAIT_MS);
    expect(failure).toMatchObject({ kind: 'timeout' });
    expect(emulator.requests.length).toBe(before);
    await holder.end({
      record: null,
      error: new Error('never sent'),
      mayHaveBeenBilled: false,
      settlement: 'none',
    });
    // Once the holder is gone, the same call goes through.
    const reply = await adapter.complete({
      model: 'primary-flash',
      messages: [{ role: 'user', content: 'Is the build green?' }],
      maxTokens: 1000,
    });
    expect(reply.calls).toHaveLength(1);
    expect(emulator.requests.length).toBe(before + 1);
    await budget.close();
  });
});
