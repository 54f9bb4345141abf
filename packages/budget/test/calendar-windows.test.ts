// Calendar windows on the memory store, with its clock moved by the test: each window is its own
// ledger, an attempt settles in the window it was reserved in, a refusal says when the window ends,
// root and role windows differ, and the store refuses a window its clock is not in.
import { describe, expect, it } from 'vitest';
import { createBudget } from '../src/budget.js';
import { BudgetError } from '../src/budget-error.js';
import { MemoryBudgetStore } from '../src/memory-store.js';
import { attemptInfo, callRecord, DOLLAR_PER_OUTPUT_TOKEN } from './support/attempt-info.js';

function movingClock(iso: string) {
  let now = Date.parse(iso);
  return {
    read: () => now,
    set: (to: string) => {
      now = Date.parse(to);
    },
  };
}

function dailyBudget(clock: () => number, timeZone = 'UTC') {
  return createBudget({
    scope: { name: 'svc', limitUsd: 5, window: { period: 'day', timeZone } },
    roles: { judge: { limitUsd: 2, window: 'hour' } },
    maxPricesOf: () => DOLLAR_PER_OUTPUT_TOKEN,
    clock,
    waitForSettlements: false,
    onWarning: () => {},
  });
}

async function refusalOf(answer: unknown): Promise<BudgetError> {
  const error = await Promise.resolve(answer).then(
    () => null,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(BudgetError);
  return error as BudgetError;
}

describe('calendar windows (memory store, moved clock)', () => {
  it('starts each day from $0, and a refusal says when the window ends', async () => {
    const clock = movingClock('2026-11-28T23:00:00Z');
    const budget = dailyBudget(clock.read);
    const first = await budget.beforeAttempt(attemptInfo({ maxTokens: 4 }));
    await first.end({ record: callRecord(4), error: null, mayHaveBeenBilled: true });
    const refusal = await refusalOf(budget.beforeAttempt(attemptInfo({ maxTokens: 2 })));
    expect(refusal.reason).toBe('spend');
    expect(refusal.retryAfterMs).toBe(3_600_000);
    expect(refusal.message).toMatch(/in its window \(it ends in 3600000 ms\)/);
    const [root] = await budget.usage();
    expect(root?.window).toEqual({ start: '2026-11-28T00:00:00.000Z', end: '2026-11-29T00:00:00.000Z' });
    clock.set('2026-11-29T00:00:00Z');
    const [fresh] = await budget.usage();
    expect(fresh).toMatchObject({ spentUsd: 0, reservedUsd: 0, inFlight: 0 });
    expect(fresh?.window).toEqual({ start: '2026-11-29T00:00:00.000Z', end: '2026-11-30T00:00:00.000Z' });
    await (await budget.beforeAttempt(attemptInfo({ maxTokens: 2 }))).end({
      record: callRecord(2),
      error: null,
      mayHaveBeenBilled: true,
    });
    expect((await budget.usage())[0]?.spentUsd).toBe(2);
  });

  it('settles an attempt in the window it was reserved in, even after midnight', async () => {
    const clock = movingClock('2026-11-28T23:59:59.900Z');
    const store = new MemoryBudgetStore({ clock: clock.read });
    const budget = createBudget({
      store,
      scope: { name: 'svc', limitUsd: 5, window: 'day' },
      maxPricesOf: () => DOLLAR_PER_OUTPUT_TOKEN,
      onWarning: () => {},
    });
    const late = await budget.beforeAttempt(attemptInfo({ maxTokens: 3 }));
    clock.set('2026-11-29T00:00:00.100Z');
    const [midnight] = await budget.usage();
    // The new window starts at $0, whatever is still in flight in the old one.
    expect(midnight).toMatchObject({ spentUsd: 0, reservedUsd: 0, inFlight: 0 });
    await late.end({ record: callRecord(2.5), error: null, mayHaveBeenBilled: true });
    expect((await budget.usage())[0]?.spentUsd).toBe(0);
    const [old] = store.counters([
      {
        key: '{svc}{2026-11-28T00:00:00.000Z}',
        limitNanoUsd: null,
        maxInFlight: null,
      },
    ]);
    expect(old).toMatchObject({ spentNanoUsd: 2_500_000_000, reservedNanoUsd: 0, inFlight: 0 });
  });

  it('a call fits every scope in its own window: an hourly role under a daily root', async () => {
    const clock = movingClock('2026-11-28T10:30:00Z');
    const budget = dailyBudget(clock.read);
    const judge = attemptInfo({ maxTokens: 2, role: 'judge' });
    await (await budget.beforeAttempt(judge)).end({
      record: callRecord(2),
      error: null,
      mayHaveBeenBilled: true,
    });
    const refusal = await refusalOf(budget.beforeAttempt(judge));
    expect(refusal.scope).toBe('svc/judge');
    expect(refusal.retryAfterMs).toBe(30 * 60_000);
    clock.set('2026-11-28T11:00:00Z');
    const usage = await budget.usage('judge');
    expect(usage.map((scope) => scope.spentUsd)).toEqual([2, 0]);
    expect(usage[1]?.window).toEqual({ start: '2026-11-28T11:00:00.000Z', end: '2026-11-28T12:00:00.000Z' });
    await (await budget.beforeAttempt(judge)).end({
      record: callRecord(2),
      error: null,
      mayHaveBeenBilled: true,
    });
    expect((await budget.usage('judge')).map((scope) => scope.spentUsd)).toEqual([4, 2]);
  });

  it('a day in New York across the spring change is 23 hours', async () => {
    const clock = movingClock('2026-03-08T04:59:59Z');
    const budget = dailyBudget(clock.read, 'America/New_York');
    const [before] = await budget.usage();
    expect(before?.window).toEqual({ start: '2026-03-07T05:00:00.000Z', end: '2026-03-08T05:00:00.000Z' });
    clock.set('2026-03-08T05:00:00Z');
    const [day] = await budget.usage();
    expect(day?.window).toEqual({ start: '2026-03-08T05:00:00.000Z', end: '2026-03-09T04:00:00.000Z' });
  });

  it('a scope without a window never resets, and a refusal in it has no retryAfterMs', async () => {
    const clock = movingClock('2026-11-28T23:00:00Z');
    const budget = createBudget({
      scope: { name: 'run-42', limitUsd: 1 },
      maxPricesOf: () => DOLLAR_PER_OUTPUT_TOKEN,
      clock: clock.read,
      onWarning: () => {},
    });
    const refusal = await refusalOf(budget.beforeAttempt(attemptInfo({ maxTokens: 2 })));
    expect(refusal.retryAfterMs).toBeNull();
    expect((await budget.usage())[0]?.window).toBeNull();
  });

  it('the store refuses a window its clock is not in, and the budget asks again with its', async () => {
    // The store's clock is a day ahead of the budget's guess (its own clock given to the store).
    const storeClock = movingClock('2026-11-29T12:00:00Z');
    const store = new MemoryBudgetStore({ clock: storeClock.read });
    const refused = store.acquire({
      leaseId: 'a',
      scopes: [
        {
          key: '{svc}{2026-11-28T00:00:00.000Z}',
          limitNanoUsd: null,
          maxInFlight: null,
          window: { startMs: Date.parse('2026-11-28T00:00:00Z'), endMs: Date.parse('2026-11-29T00:00:00Z') },
        },
      ],
      amountNanoUsd: 1,
      ttlMs: 1000,
    });
    expect(refused).toMatchObject({
      granted: false,
      reason: 'window',
      scopeIndex: 0,
      nowMs: storeClock.read(),
    });
  });

  it('drops a past window once its keep (35 days after its end) is over, at the next call in the scope', async () => {
    const clock = movingClock('2026-10-01T12:00:00Z');
    const store = new MemoryBudgetStore({ clock: clock.read });
    const budget = createBudget({
      store,
      scope: { name: 'svc', limitUsd: 5, window: 'day' },
      maxPricesOf: () => DOLLAR_PER_OUTPUT_TOKEN,
      onWarning: () => {},
    });
    const spendOne = async () =>
      (await budget.beforeAttempt(attemptInfo({ maxTokens: 1 }))).end({
        record: callRecord(1),
        error: null,
        mayHaveBeenBilled: true,
      });
    await spendOne();
    const first = { key: '{svc}{2026-10-01T00:00:00.000Z}', limitNanoUsd: null, maxInFlight: null };
    // 35 days after its end, it is still kept.
    clock.set('2026-11-05T23:59:59Z');
    await spendOne();
    expect(store.counters([first])[0]?.spentNanoUsd).toBe(1_000_000_000);
    clock.set('2026-11-06T00:00:00Z');
    await spendOne();
    expect(store.counters([first])[0]?.spentNanoUsd).toBe(0);
  });

  it('refuses a bad window naming the field', () => {
    expect(() =>
      createBudget({
        scope: { name: 'svc', window: 'daily' as 'day' },
        maxPricesOf: () => DOLLAR_PER_OUTPUT_TOKEN,
      }),
    ).toThrow(/scope\.window\.period must be 'hour', 'day', 'week' or 'month'/);
    expect(() =>
      createBudget({
        scope: { name: 'svc' },
        roles: { judge: { window: { period: 'day', timeZone: 'Nowhere/City' } } },
      }),
    ).toThrow(/roles\.judge\.window\.timeZone must be an IANA time zone name/);
    expect(() =>
      createBudget({ scope: { name: 'svc' }, store: new MemoryBudgetStore(), clock: Date.now }),
    ).toThrow(/clock is for the memory store createBudget builds/);
  });
});
