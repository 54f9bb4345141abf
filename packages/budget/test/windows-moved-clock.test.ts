// A PostgreSQL server and a redis-server whose clocks the test moves while they run (an offset in a
// file a preloaded shim, our clock-shim.c, reads at each call)
// across midnight, the ends of months of 28, 29 (a leap day), 30 and 31
// days, and a DST change in America/New_York and Europe/Berlin. In each: a budget spends in the last
// seconds of a window and keeps a call in flight; a refusal says the window ends in seconds; the clock
// moves past the boundary, the budget (whose own clock never moved) is told the window by the store,
// the new window starts at $0, and the call in flight settles into the window it was reserved in.
// Neither server runs reliably under libfaketime: redis-server's allocator, jemalloc, reads the clock while
// libfaketime initialises (which it refuses), and libfaketime reads its file with `fopen`, which a PostgreSQL
// backend may reach from a signal handler (fake-clock.ts); our shim allocates nothing. A Redis Cluster's
// windows are tested on its own clock (windows-stores): moving a cluster's clocks by years would
// move its nodes' failure detection too.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBudget } from '../src/budget.js';
import { BudgetError } from '../src/budget-error.js';
import { PostgresBudgetStore } from '../src/postgres-store.js';
import { RedisBudgetStore } from '../src/redis-store.js';
import { windowKey } from '../src/scope-windows.js';
import { type BudgetWindow, checkWindow, windowBounds } from '../src/window-bounds.js';
import { attemptInfo, callRecord, DOLLAR_PER_OUTPUT_TOKEN } from './support/attempt-info.js';
import { type MovableClock, movableClock } from './support/fake-clock.js';
import { startPostgres, type TestPostgres } from './support/start-postgres.js';
import { startRedis, type TestRedis } from './support/start-redis.js';

const SECOND = 1000;

// [what, window, the server's time a few seconds before the boundary, a few seconds after, the old window's hours]
const CASES: [string, BudgetWindow, string, string, number][] = [
  ['midnight', 'day', '2026-11-28T23:59:56Z', '2026-11-29T00:00:04Z', 24],
  ['a 28-day month', 'month', '2027-02-28T23:59:56Z', '2027-03-01T00:00:04Z', 28 * 24],
  ['a leap day', 'day', '2028-02-29T23:59:56Z', '2028-03-01T00:00:04Z', 24],
  ['a 29-day month', 'month', '2028-02-29T23:59:56Z', '2028-03-01T00:00:04Z', 29 * 24],
  ['a 30-day month', 'month', '2026-04-30T23:59:56Z', '2026-05-01T00:00:04Z', 30 * 24],
  ['a 31-day month (and year)', 'month', '2026-12-31T23:59:56Z', '2027-01-01T00:00:04Z', 31 * 24],
  [
    'the 25-hour day in New York',
    { period: 'day', timeZone: 'America/New_York' },
    '2026-11-02T04:59:56Z',
    '2026-11-02T05:00:04Z',
    25,
  ],
  [
    'the 23-hour day in Berlin',
    { period: 'day', timeZone: 'Europe/Berlin' },
    '2026-03-29T21:59:56Z',
    '2026-03-29T22:00:04Z',
    23,
  ],
  ['a week (Sunday to Monday)', 'week', '2026-11-29T23:59:56Z', '2026-11-30T00:00:04Z', 7 * 24],
];

describe('calendar windows on PostgreSQL with its clock moved (clock-shim.c)', () => {
  let clock: MovableClock;
  let postgres: TestPostgres;
  let store: PostgresBudgetStore;

  beforeAll(async () => {
    clock = movableClock();
    postgres = await startPostgres({ env: clock.env });
    store = new PostgresBudgetStore({ url: postgres.url, schema: 'moved' });
  });
  afterAll(async () => {
    await store?.close();
    await postgres?.stop();
  });

  it.each(CASES)('across %s', (...args) => acrossBoundary(store, clock, ...args));
  it('prunes a past window (its rows, listing and mark) at the next acquisition once 35 days past its end', async () => {
    clock.moveTo('2026-10-01T12:00:00Z');
    const budget = createBudget({
      store,
      scope: { name: 'pruned', limitUsd: 5, window: 'day' },
      maxPricesOf: () => DOLLAR_PER_OUTPUT_TOKEN,
      thresholds: [0.1],
      onThreshold: () => {},
      onWarning: () => {},
    });
    const spendOne = async () =>
      (await budget.beforeAttempt(attemptInfo({ maxTokens: 1 }))).end({
        record: callRecord(1),
        error: null,
        mayHaveBeenBilled: true,
      });
    await spendOne();
    const first = { key: '{pruned}{2026-10-01T00:00:00.000Z}', limitNanoUsd: null, maxInFlight: null };
    const client = new pg.Client({ connectionString: postgres.url });
    await client.connect();
    const rowsOf = async () =>
      (
        await client.query(
          `SELECT (SELECT count(*)::integer FROM moved.budget_scopes WHERE scope_key = $1) AS scopes,
             (SELECT count(*)::integer FROM moved.budget_windows WHERE window_key = $1) AS windows,
             (SELECT count(*)::integer FROM moved.budget_thresholds WHERE scope_key = $1) AS marks`,
          [first.key],
        )
      ).rows[0];
    try {
      expect(await rowsOf()).toEqual({ scopes: 1, windows: 1, marks: 1 });
      clock.moveTo('2026-11-05T23:59:00Z');
      await spendOne();
      expect((await store.counters([first]))[0]?.spentNanoUsd).toBe(1_000_000_000);
      clock.moveTo('2026-11-06T00:00:30Z');
      await spendOne();
      expect(await rowsOf()).toEqual({ scopes: 0, windows: 0, marks: 0 });
    } finally {
      await client.end();
    }
  });
});

describe('calendar windows on redis-server with its clock moved (clock-shim.c)', () => {
  let clock: MovableClock;
  let redis: TestRedis;
  let store: RedisBudgetStore;

  beforeAll(async () => {
    // No C compiler: the suite fails, naming what it needs (CI installs one; .ci/run).
    clock = movableClock();
    redis = await startRedis({ env: clock.env });
    store = new RedisBudgetStore({ url: redis.url, prefix: 'moved:' });
  });
  afterAll(async () => {
    await store?.close();
    await redis?.stop();
  });

  it.each(CASES)('across %s', (...args) => acrossBoundary(store, clock, ...args));
});

/**
 * A windowed scope spent to its limit a few seconds before a boundary on the server's clock, a
 * call still in flight; the server's clock moved past the boundary (the budget's own never moves):
 * the new window starts at $0 and the held call settles into its own window.
 */
async function acrossBoundary(
  store: PostgresBudgetStore | RedisBudgetStore,
  clock: MovableClock,
  ...[what, window, before, after, hours]: (typeof CASES)[number]
): Promise<void> {
  const name = `svc-${what.replace(/[^a-z0-9]+/g, '-')}`;
  clock.moveTo(before);
  const serverNow = await store.clockMs();
  expect(Math.abs(serverNow - Date.parse(before))).toBeLessThan(2 * SECOND);
  const rule = checkWindow(window, 'window');
  if (rule === null) throw new Error('no window');
  const old = windowBounds(rule, serverNow);
  expect((old.endMs - old.startMs) / 3_600_000).toBe(hours);
  const budget = createBudget({
    store,
    scope: { name, limitUsd: 5, window },
    maxPricesOf: () => DOLLAR_PER_OUTPUT_TOKEN,
    waitForSettlements: false,
    onWarning: () => {},
  });
  await (await budget.beforeAttempt(attemptInfo({ maxTokens: 3 }))).end({
    record: callRecord(3),
    error: null,
    mayHaveBeenBilled: true,
  });
  const inFlight = await budget.beforeAttempt(attemptInfo({ maxTokens: 1 }));
  // 3 spent + 3 > 5: out of money in this window.
  const refusal = await Promise.resolve(budget.beforeAttempt(attemptInfo({ maxTokens: 3 }))).catch(
    (error: unknown) => error,
  );
  expect(refusal).toBeInstanceOf(BudgetError);
  expect((refusal as BudgetError).reason).toBe('spend');
  expect((refusal as BudgetError).retryAfterMs).toBeGreaterThan(0);
  expect((refusal as BudgetError).retryAfterMs).toBeLessThan(6 * SECOND);
  const [last] = await budget.usage();
  expect(last?.window).toEqual({
    start: new Date(old.startMs).toISOString(),
    end: new Date(old.endMs).toISOString(),
  });

  clock.moveTo(after);
  // The budget's own clock never moved: the store says which window it is.
  const fresh = await budget.beforeAttempt(attemptInfo({ maxTokens: 5 }));
  const [now] = await budget.usage();
  expect(now).toMatchObject({ spentUsd: 0, reservedUsd: 5, inFlight: 1 });
  expect(now?.window?.start).toBe(new Date(old.endMs).toISOString());
  await inFlight.end({ record: callRecord(0.5), error: null, mayHaveBeenBilled: true });
  await fresh.end({ record: callRecord(1), error: null, mayHaveBeenBilled: true });
  const [oldWindow, newWindow] = [
    ...(await store.counters([
      { key: windowKey(`{${name}}`, old.startMs), limitNanoUsd: null, maxInFlight: null },
    ])),
    ...(await store.counters([
      { key: windowKey(`{${name}}`, old.endMs), limitNanoUsd: null, maxInFlight: null },
    ])),
  ];
  expect(oldWindow).toMatchObject({ spentNanoUsd: 3_500_000_000, reservedNanoUsd: 0, inFlight: 0 });
  expect(newWindow).toMatchObject({ spentNanoUsd: 1_000_000_000, reservedNanoUsd: 0, inFlight: 0 });
}
