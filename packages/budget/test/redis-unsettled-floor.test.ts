// A Redis scope's `unsettledFrom`: reservations and settlements read the `unsettled` set only when an
// entry may be due. The boundary is tested on a redis-server whose clock the test moves (clock-shim.c):
// an entry is never pruned before its retention, is pruned by the first reservation once it is due, and
// an entry counted after the clock moved back (older than the floor) is pruned late, never early; the
// figures keep every pruned call. The steps are tens of seconds apart on the server's clock, so the
// machine's speed cannot move an entry across the retention.
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedisBudgetStore } from '../src/redis-store.js';
import { type MovableClock, movableClock } from './support/fake-clock.js';
import { startRedis, type TestRedis } from './support/start-redis.js';

const SECOND = 1000;
const RETENTION_MS = 60 * SECOND;
const chain = [
  { key: '{floor}', limitNanoUsd: null, maxInFlight: null },
  { key: '{floor}/judge', limitNanoUsd: null, maxInFlight: null },
];

describe('the unsettled entries floor on redis-server with its clock moved (clock-shim.c)', () => {
  let clock: MovableClock;
  let redis: TestRedis;
  let store: RedisBudgetStore;
  let client: Redis;

  beforeAll(async () => {
    // No C compiler: the suite fails, naming what it needs (CI installs one; .ci/run).
    clock = movableClock();
    redis = await startRedis({ env: clock.env });
    store = new RedisBudgetStore({ url: redis.url, prefix: 'floor:', retentionMs: RETENTION_MS });
    client = new Redis(redis.url);
  });
  afterAll(async () => {
    client?.disconnect();
    await store?.close();
    await redis?.stop();
  });

  /** Moves the server's clock to `start` plus `seconds`. */
  const at = (start: number, seconds: number) =>
    clock.moveTo(new Date(start + seconds * SECOND).toISOString());
  /** A call counted at its worst case (40) under `id`; a call settled at its cost (2). Both touch every scope. */
  const unsettledCall = async (id: string) => {
    await store.acquire({ leaseId: id, scopes: chain, amountNanoUsd: 40, ttlMs: 600 * SECOND });
    expect(await store.settle(id, chain, { actualNanoUsd: 40, unsettled: true, leased: true })).toBe(true);
  };
  const settledCall = async (id: string) => {
    await store.acquire({ leaseId: id, scopes: chain, amountNanoUsd: 40, ttlMs: 600 * SECOND });
    expect(await store.settle(id, chain, { actualNanoUsd: 2, leased: true })).toBe(true);
  };
  /** The lease ids with an entry in each scope (hash field and set member alike). */
  const entries = async () =>
    Promise.all(
      chain.map(async (scope) => {
        const { state, unsettled } = store.keysOf(scope);
        const members = (await client.zrange(unsettled, 0, -1)).sort();
        const fields = Object.keys(await client.hgetall(state))
          .filter((field) => field.startsWith('u:'))
          .map((field) => field.slice(2))
          .sort();
        expect(fields).toEqual(members);
        return members;
      }),
    );

  it('prunes on time, and late (never early) what was counted after the clock moved back', async () => {
    const start = Date.now() + 3600 * SECOND;
    at(start, 0);
    await unsettledCall('x');
    expect(await entries()).toEqual([['x'], ['x']]);
    // The clock moves back 30 s: 'y' is counted older than the floor the scope holds.
    at(start, -30);
    await unsettledCall('y');
    expect(await entries()).toEqual([
      ['x', 'y'],
      ['x', 'y'],
    ]);

    // 'y' is 65 s old by the clock (past the retention), 'x' 35 s: 'x' is kept, and so is 'y' (late).
    at(start, 35);
    await settledCall('a');
    expect(await entries()).toEqual([
      ['x', 'y'],
      ['x', 'y'],
    ]);
    // 'x' at 59 s: still not due.
    at(start, 59);
    await settledCall('b');
    expect(await entries()).toEqual([
      ['x', 'y'],
      ['x', 'y'],
    ]);

    // Past the floor's retention: the next reservation prunes both in every scope; the figures keep them.
    at(start, 65);
    await store.acquire({ leaseId: 'c', scopes: chain, amountNanoUsd: 40, ttlMs: 600 * SECOND });
    expect(await entries()).toEqual([[], []]);
    expect(await store.settle('c', chain, { actualNanoUsd: 2, leased: true })).toBe(true);
    for (const counters of await store.counters(chain)) {
      expect(counters).toMatchObject({
        spentNanoUsd: 40 + 40 + 2 + 2 + 2,
        unsettledNanoUsd: 80,
        unsettledCalls: 2,
        reservedNanoUsd: 0,
        inFlight: 0,
      });
    }
    // A settlement after its entry was pruned changes nothing (the worst case stays, once).
    expect(await store.settle('x', chain, { actualNanoUsd: 3, leased: true })).toBe(false);
    expect((await store.counters(chain))[0]?.spentNanoUsd).toBe(86);
  });
});
