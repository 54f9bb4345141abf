import { ChatError } from '@switchboard/adapter';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BudgetOptions, createBudget } from '../src/budget.js';
import { BudgetError } from '../src/budget-error.js';
import type { BudgetStore } from '../src/budget-store.js';
import { attemptInfo, callRecord, DOLLAR_PER_OUTPUT_TOKEN } from './support/attempt-info.js';
import { memoryStores, postgresStores, redisStores } from './support/store-factories.js';
import { until } from './support/until.js';

// One behaviour suite, unchanged, for every store.
describe.each([memoryStores(), redisStores(), postgresStores()])('Budget on $name', (factory) => {
  beforeAll(() => factory.setUp());
  afterAll(() => factory.tearDown());

  let runs = 0;
  function budgetOn(store: BudgetStore, options: Partial<BudgetOptions> = {}) {
    runs += 1;
    return createBudget({
      store,
      scope: { name: `run-${runs}`, limitUsd: 10 },
      maxPricesOf: () => DOLLAR_PER_OUTPUT_TOKEN,
      onWarning: () => {},
      ...options,
    });
  }

  describe('reservation and settlement', () => {
    it('reserves the worst case before the attempt and settles with the record cost', async () => {
      const budget = budgetOn(factory.create());
      const handle = await budget.beforeAttempt(attemptInfo({ maxTokens: 3 }));
      const [during] = await budget.usage();
      expect(during).toMatchObject({ reservedUsd: 3, spentUsd: 0, inFlight: 1, limitUsd: 10 });
      await handle.end({ record: callRecord(1.25), error: null, mayHaveBeenBilled: true });
      const [after] = await budget.usage();
      expect(after).toMatchObject({
        reservedUsd: 0,
        spentUsd: 1.25,
        spentNanoUsd: 1_250_000_000,
        inFlight: 0,
      });
    });

    it('hands the lease back at once from a store that answers at once, and rejects (never throws) a refusal', async () => {
      const budget = budgetOn(factory.create(), {
        scope: { name: `at-once-${runs}`, limitUsd: 2 },
        waitForSettlements: false,
      });
      const answer = budget.beforeAttempt(attemptInfo({ maxTokens: 2 }));
      // The in-memory store answers without a promise, so the adapter's attempt waits for no turn of
      // the event loop; a networked store's answer is a promise.
      expect(answer instanceof Promise).toBe(factory.name !== 'MemoryBudgetStore');
      const handle = await answer;
      const refusal = budget.beforeAttempt(attemptInfo({ maxTokens: 2 }));
      expect(refusal).toBeInstanceOf(Promise);
      // It fits once the first settles, but this budget does not wait: `reserved`, never `spend`.
      await expect(refusal).rejects.toMatchObject({ kind: 'budget', reason: 'reserved' });
      await handle.end({ record: callRecord(0.5), error: null, mayHaveBeenBilled: true });
      expect((await budget.usage())[0]).toMatchObject({ reservedUsd: 0, spentUsd: 0.5, inFlight: 0 });
    });

    it('releases the reservation of an attempt that failed without a reply', async () => {
      const budget = budgetOn(factory.create());
      const handle = await budget.beforeAttempt(attemptInfo({ maxTokens: 4 }));
      await handle.end({
        record: null,
        error: new ChatError({ kind: 'server', status: 503, message: '503' }),
        mayHaveBeenBilled: false,
      });
      expect((await budget.usage())[0]).toMatchObject({ reservedUsd: 0, spentUsd: 0, inFlight: 0 });
    });

    it('ends a handle once: a second end changes nothing', async () => {
      const budget = budgetOn(factory.create());
      const handle = await budget.beforeAttempt(attemptInfo());
      await handle.end({ record: callRecord(1), error: null, mayHaveBeenBilled: true });
      await handle.end({ record: callRecord(1), error: null, mayHaveBeenBilled: true });
      expect((await budget.usage())[0]?.spentUsd).toBe(1);
    });

    it('refuses at once, before anything is sent, when the worst case does not fit even with nothing in flight, naming scope, limit, spent and reserved', async () => {
      const budget = budgetOn(factory.create(), { scope: { name: `tight-${runs}`, limitUsd: 5 } });
      const first = await budget.beforeAttempt(attemptInfo({ maxTokens: 2 }));
      await first.end({ record: callRecord(1.5), error: null, mayHaveBeenBilled: true });
      await budget.beforeAttempt(attemptInfo({ maxTokens: 2 }));
      // 1.5 spent + 4 > 5: no settlement can make room, so it does not wait for the call in flight.
      const refusal = Promise.resolve(budget.beforeAttempt(attemptInfo({ maxTokens: 4 })));
      await expect(refusal).rejects.toBeInstanceOf(BudgetError);
      const error = (await refusal.catch((caught: unknown) => caught)) as BudgetError;
      expect(ChatError.isInstance(error)).toBe(true);
      expect(error).toMatchObject({
        kind: 'budget',
        retryable: false,
        reason: 'spend',
        scope: budget.scope,
        limitUsd: 5,
        spentUsd: 1.5,
        reservedUsd: 2,
        requestedUsd: 4,
      });
      expect(error.message).toBe(
        `budget scope "${budget.scope}" refused a call of test-model: limit $5.000000, spent $1.500000, reserved $2.000000 by calls in flight, this call needs up to $4.000000`,
      );
      expect((await budget.usage())[0]).toMatchObject({ reservedUsd: 2, inFlight: 1 });
    });

    it('lets concurrent reservations through only while they fit: no overshoot', async () => {
      const budget = budgetOn(factory.create(), {
        scope: { name: `race-${runs}`, limitUsd: 10 },
        waitForSettlements: false,
      });
      const outcomes = await Promise.allSettled(
        Array.from({ length: 50 }, () => budget.beforeAttempt(attemptInfo({ maxTokens: 3 }))),
      );
      const granted = outcomes.filter((outcome) => outcome.status === 'fulfilled');
      expect(granted).toHaveLength(3);
      for (const outcome of outcomes) {
        if (outcome.status === 'rejected') expect(outcome.reason).toMatchObject({ reason: 'reserved' });
      }
      for (const outcome of granted)
        await outcome.value.end({ record: callRecord(3), error: null, mayHaveBeenBilled: true });
      expect((await budget.usage())[0]).toMatchObject({ spentUsd: 9, reservedUsd: 0 });
    });
  });

  describe('nested scopes', () => {
    it('reserves in the root and the child at once; the child refuses while the root has room', async () => {
      const run = budgetOn(factory.create(), {
        scope: { name: `nest-${runs}`, limitUsd: 100 },
        waitForSettlements: false,
      });
      const judge = run.child({ name: 'judge', limitUsd: 4 });
      expect(judge.scope).toBe(`${run.scope}/judge`);
      await judge.beforeAttempt(attemptInfo({ maxTokens: 3 }));
      const refusal = await Promise.resolve(judge.beforeAttempt(attemptInfo({ maxTokens: 3 }))).catch(
        (error: unknown) => error,
      );
      expect(refusal).toMatchObject({
        kind: 'budget',
        reason: 'reserved',
        scope: judge.scope,
        limitUsd: 4,
        reservedUsd: 3,
      });
      // The refused call reserved nowhere, also not in the root, which had room.
      const [root, child] = await judge.usage();
      expect(root).toMatchObject({ scope: run.scope, reservedUsd: 3, inFlight: 1 });
      expect(child).toMatchObject({ scope: judge.scope, reservedUsd: 3, inFlight: 1 });
    });

    it('refuses in the root even when the child has room, and counts a role scope from info.role', async () => {
      const run = budgetOn(factory.create(), {
        scope: { name: `roles-${runs}`, limitUsd: 5 },
        roles: { hunter: { limitUsd: 100 } },
        waitForSettlements: false,
      });
      const handle = await run.beforeAttempt(attemptInfo({ maxTokens: 4, role: 'hunter' }));
      const refusal = await Promise.resolve(
        run.beforeAttempt(attemptInfo({ maxTokens: 2, role: 'hunter' })),
      ).catch((error: unknown) => error);
      expect(refusal).toMatchObject({ kind: 'budget', reason: 'reserved', scope: run.scope, limitUsd: 5 });
      await handle.end({ record: callRecord(1), error: null, mayHaveBeenBilled: true });
      const [root, hunter] = await run.usage('hunter');
      expect(root).toMatchObject({ spentUsd: 1, reservedUsd: 0 });
      expect(hunter).toMatchObject({ scope: `${run.scope}/hunter`, spentUsd: 1, limitUsd: 100 });
      // A role without limits adds no scope.
      expect(await run.usage('detector')).toHaveLength(1);
    });
  });

  describe('concurrency gate', () => {
    it('lets at most maxInFlight attempts through; the next waits for a slot and gets the freed one', async () => {
      const budget = budgetOn(factory.create(), { scope: { name: `gate-${runs}`, maxInFlight: 2 } });
      const first = await budget.beforeAttempt(attemptInfo());
      await budget.beforeAttempt(attemptInfo());
      let third = false;
      const waiting = Promise.resolve(budget.beforeAttempt(attemptInfo())).then((handle) => {
        third = true;
        return handle;
      });
      await new Promise((resolve) => setTimeout(resolve, 150));
      expect(third).toBe(false);
      expect((await budget.usage())[0]?.inFlight).toBe(2);
      await first.end({ record: null, error: null, mayHaveBeenBilled: false });
      await waiting;
      expect((await budget.usage())[0]?.inFlight).toBe(2);
    });

    it('refuses at once when waiting is not allowed', async () => {
      const budget = budgetOn(factory.create(), {
        scope: { name: `now-${runs}`, maxInFlight: 1 },
        slotWaitMs: 0,
      });
      await budget.beforeAttempt(attemptInfo());
      await expect(budget.beforeAttempt(attemptInfo())).rejects.toMatchObject({
        kind: 'budget',
        reason: 'in_flight',
        scope: budget.scope,
        maxInFlight: 1,
        inFlight: 1,
      });
    });

    it('refuses after the wait deadline, and ends a wait when the caller aborts', async () => {
      const budget = budgetOn(factory.create(), {
        scope: { name: `wait-${runs}`, maxInFlight: 1 },
        slotWaitMs: 200,
      });
      await budget.beforeAttempt(attemptInfo());
      await expect(budget.beforeAttempt(attemptInfo())).rejects.toMatchObject({ reason: 'in_flight' });
      const controller = new AbortController();
      const waiting = budget.beforeAttempt(attemptInfo({ signal: controller.signal }));
      setTimeout(() => controller.abort(), 50);
      await expect(waiting).rejects.toMatchObject({ kind: 'aborted' });
      expect((await budget.usage())[0]?.inFlight).toBe(1);
    });
  });

  describe('leases', () => {
    it('keeps a running attempt leased past its TTL by renewing it', async () => {
      // Renewed every third of its TTL: a renewal late by most of the TTL (a loaded machine's timer)
      // still keeps it; the wait is past twice the TTL, so without renewals it would have lapsed.
      const TTL_MS = 1500;
      const budget = budgetOn(factory.create(), { leaseTtlMs: TTL_MS });
      const handle = await budget.beforeAttempt(attemptInfo({ maxTokens: 2 }));
      await new Promise((resolve) => setTimeout(resolve, 2 * TTL_MS + 200));
      expect((await budget.usage())[0]).toMatchObject({ reservedUsd: 2, inFlight: 1 });
      await handle.end({ record: callRecord(0.5), error: null, mayHaveBeenBilled: true });
      expect((await budget.usage())[0]).toMatchObject({ reservedUsd: 0, spentUsd: 0.5, inFlight: 0 });
    });

    it('counts the lease of a holder that stopped renewing as unsettled spend at its worst case, and frees its slot, within the TTL', async () => {
      const store = factory.create();
      const scope = { name: `dead-${runs}`, limitUsd: 5, maxInFlight: 1 };
      // A TTL long enough that the holder's lease is surely live when the other asks (a loaded machine
      // may stall for a while between the two); then the lapse is waited for as an event.
      const dead = budgetOn(store, { scope, leaseTtlMs: 1500 });
      const stalled = await dead.beforeAttempt(attemptInfo({ maxTokens: 3 }));
      await dead.close({ timeoutMs: 0 }); // what a stalled or killed process does: no more renewals
      const alive = budgetOn(store, { scope, leaseTtlMs: 1500, slotWaitMs: 0 });
      await expect(alive.beforeAttempt(attemptInfo({ maxTokens: 2 }))).rejects.toMatchObject({
        reason: 'in_flight',
      });
      await until(async () => (await alive.usage())[0]?.inFlight === 0, 'the stalled lease lapsing', {
        everyMs: 50,
      });
      expect((await alive.usage())[0]).toMatchObject({
        spentUsd: 3,
        unsettledUsd: 3,
        unsettledCalls: 1,
        reservedUsd: 0,
        inFlight: 0,
      });
      // Its room is not handed out again: 3 of 5 are counted, so a worst case of 3 is refused.
      await expect(alive.beforeAttempt(attemptInfo({ maxTokens: 3 }))).rejects.toMatchObject({
        reason: 'spend',
      });
      const handle = await alive.beforeAttempt(attemptInfo({ maxTokens: 2 }));
      await handle.end({ record: callRecord(2), error: null, mayHaveBeenBilled: true });
      // A late settlement replaces the worst case with the actual cost, once.
      await stalled.end({ record: callRecord(1), error: null, mayHaveBeenBilled: true });
      await stalled.end({ record: callRecord(1), error: null, mayHaveBeenBilled: true });
      expect((await alive.usage())[0]).toMatchObject({
        spentUsd: 3,
        unsettledUsd: 0,
        unsettledCalls: 0,
        reservedUsd: 0,
        inFlight: 0,
      });
    });
  });

  describe('worst case', () => {
    it('refuses a call of an unpriced model unless the budget has a maximum cost for it', async () => {
      const store = factory.create();
      const budget = budgetOn(store, { maxPricesOf: () => null });
      await expect(budget.beforeAttempt(attemptInfo())).rejects.toMatchObject({
        kind: 'budget',
        reason: 'unpriced',
      });
      const capped = budgetOn(store, { maxPricesOf: () => null, maxCostUsdOf: () => 0.25 });
      await capped.beforeAttempt(attemptInfo());
      expect((await capped.usage())[0]?.reservedUsd).toBe(0.25);
    });

    it('refuses a call whose price functions give no finite cost, leaving the counters untouched', async () => {
      const store = factory.create();
      const budget = budgetOn(store, {
        maxPricesOf: () => ({ cacheHitPerM: 0, inputPerM: Number.NaN, outputPerM: 1 }),
      });
      await expect(budget.beforeAttempt(attemptInfo())).rejects.toMatchObject({
        reason: 'unpriced',
        message: expect.stringContaining('maxPricesOf("test-model") gave a worst case of NaN USD'),
      });
      const negative = budgetOn(store, { maxPricesOf: () => null, maxCostUsdOf: () => -1 });
      await expect(negative.beforeAttempt(attemptInfo())).rejects.toMatchObject({ reason: 'unpriced' });
      expect((await budget.usage())[0]).toMatchObject({ spentNanoUsd: 0, reservedNanoUsd: 0, inFlight: 0 });
    });

    it('refuses a call without max_tokens unless the budget caps output per model', async () => {
      const store = factory.create();
      const budget = budgetOn(store);
      await expect(budget.beforeAttempt(attemptInfo({ maxTokens: null }))).rejects.toMatchObject({
        reason: 'uncapped',
      });
      const capped = budgetOn(store, { maxOutputTokens: (model) => (model === 'test-model' ? 2 : null) });
      await capped.beforeAttempt(attemptInfo({ maxTokens: null }));
      expect((await capped.usage())[0]?.reservedUsd).toBe(2);
    });

    it('settles a record without a cost by its usage at the maximum prices', async () => {
      const budget = budgetOn(factory.create());
      const handle = await budget.beforeAttempt(attemptInfo({ maxTokens: 5 }));
      await handle.end({
        record: callRecord(null, { usage: { completion_tokens: 2 } }),
        error: null,
        mayHaveBeenBilled: true,
      });
      expect((await budget.usage())[0]?.spentUsd).toBe(2);
    });
  });

  describe('unknown fate', () => {
    it('settles at the worst case, as unsettled, a record without usage or with only an estimated cost', async () => {
      const budget = budgetOn(factory.create());
      const cut = await budget.beforeAttempt(attemptInfo({ maxTokens: 4 }));
      await cut.end({ record: callRecord(null, { usage: null }), error: null, mayHaveBeenBilled: true });
      const estimated = await budget.beforeAttempt(attemptInfo({ maxTokens: 3 }));
      await estimated.end({
        record: callRecord(0.5, { priceSource: 'estimate' as never }),
        error: null,
        mayHaveBeenBilled: true,
      });
      expect((await budget.usage())[0]).toMatchObject({
        spentUsd: 7,
        unsettledUsd: 7,
        unsettledCalls: 2,
        reservedUsd: 0,
        inFlight: 0,
      });
    });

    it('settles at the worst case a failed attempt that may have been billed, and releases one that was not', async () => {
      const budget = budgetOn(factory.create());
      const timedOut = await budget.beforeAttempt(attemptInfo({ maxTokens: 4 }));
      await timedOut.end({
        record: null,
        error: new ChatError({ kind: 'timeout', message: 'no reply within 300 ms' }),
        mayHaveBeenBilled: true,
      });
      const refused = await budget.beforeAttempt(attemptInfo({ maxTokens: 2 }));
      await refused.end({
        record: null,
        error: new ChatError({ kind: 'connection', message: 'connect ECONNREFUSED' }),
        mayHaveBeenBilled: false,
      });
      expect((await budget.usage())[0]).toMatchObject({
        spentUsd: 4,
        unsettledUsd: 4,
        unsettledCalls: 1,
        reservedUsd: 0,
        inFlight: 0,
      });
    });
  });

  describe('options', () => {
    it('checks every option when the budget is made, naming it', () => {
      const make = (options: Partial<BudgetOptions>) => () =>
        createBudget({ scope: { name: 'run' }, ...options } as BudgetOptions);
      expect(make({ roles: { judge: { limitUsd: -1 } } })).toThrow(
        'roles.judge.limitUsd must be a number of USD from 0 to 9000000',
      );
      expect(make({ roles: { judge: { maxInFlight: 0 } } })).toThrow(
        'roles.judge.maxInFlight must be an integer >= 1',
      );
      expect(make({ scope: { name: 'run\nsecond line' } })).toThrow(
        /scope\.name must be a non-empty string without '\{', '\}', '\/' or control characters/,
      );
      expect(make({ scope: { name: 'run', limitUsd: 1e300 } })).toThrow(
        'scope.limitUsd must be a number of USD',
      );
      expect(make({ fallback: { share: 0 } })).toThrow('fallback.share must be a number in (0, 1]');
      expect(make({ onLedgerLost: 'ignore' as never })).toThrow(
        "onLedgerLost must be 'refuse' or 'start-afresh'",
      );
      expect(make({ store: {} as never })).toThrow('store must be a BudgetStore');
      expect(make({ maxOutputTokens: 1.5 })).toThrow(
        'maxOutputTokens must be a positive integer or a function',
      );
    });

    it('refuses a call when the maxOutputTokens function gives no positive integer', async () => {
      for (const given of [0, 1.5, Number.NaN]) {
        const budget = budgetOn(factory.create(), { maxOutputTokens: () => given });
        await expect(budget.beforeAttempt(attemptInfo({ maxTokens: null }))).rejects.toMatchObject({
          reason: 'uncapped',
          message: expect.stringContaining(
            `maxOutputTokens("test-model") gave ${given}, expected a positive integer or null`,
          ),
        });
      }
    });
  });
});
