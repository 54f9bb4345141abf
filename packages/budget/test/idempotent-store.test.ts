import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BudgetStore } from '../src/budget-store.js';
import { scopeCounters, withoutLedgerLost } from './support/scope-counters.js';
import { memoryStores, postgresStores, redisStores } from './support/store-factories.js';

// Every store operation, applied twice, changes nothing the second time and answers as the first did.
const factories = [memoryStores(), redisStores(), postgresStores()];
describe.each(factories)('$name is idempotent by lease id', (factory) => {
  beforeAll(() => factory.setUp());
  afterAll(() => factory.tearDown());

  let runs = 0;
  function scopes(limitNanoUsd: number | null = 100, maxInFlight: number | null = 2) {
    runs += 1;
    return [
      { key: `{idem-${runs}}`, limitNanoUsd, maxInFlight },
      { key: `{idem-${runs}}/child`, limitNanoUsd: null, maxInFlight: null },
    ];
  }
  async function counters(store: BudgetStore, chain: ReturnType<typeof scopes>) {
    return withoutLedgerLost(await store.counters(chain));
  }

  it('an acquisition sent twice takes one lease and grants both times', async () => {
    const store = factory.create();
    const chain = scopes();
    const request = { leaseId: 'a', scopes: chain, amountNanoUsd: 40, ttlMs: 10_000 };
    expect(await store.acquire(request)).toMatchObject({ granted: true });
    expect(await store.acquire(request)).toMatchObject({ granted: true });
    expect(await counters(store, chain)).toEqual([
      scopeCounters({ reservedNanoUsd: 40, inFlight: 1 }),
      scopeCounters({ reservedNanoUsd: 40, inFlight: 1 }),
    ]);
  });

  it('a settlement sent twice counts once and answers the same', async () => {
    const store = factory.create();
    const chain = scopes();
    await store.acquire({ leaseId: 'b', scopes: chain, amountNanoUsd: 40, ttlMs: 10_000 });
    expect(await store.settle('b', chain, { actualNanoUsd: 25 })).toBe(true);
    expect(await store.settle('b', chain, { actualNanoUsd: 25 })).toBe(true);
    expect((await counters(store, chain))[0]).toEqual(scopeCounters({ spentNanoUsd: 25 }));
  });

  it('a release that arrives before its acquisition makes the late acquisition take nothing', async () => {
    const store = factory.create();
    const chain = scopes();
    expect(await store.settle('c', chain, { actualNanoUsd: 0 })).toBe(false);
    expect(
      await store.acquire({ leaseId: 'c', scopes: chain, amountNanoUsd: 40, ttlMs: 10_000 }),
    ).toMatchObject({
      granted: false,
      reason: 'ended',
    });
    expect((await counters(store, chain))[0]).toMatchObject({ reservedNanoUsd: 0, inFlight: 0 });
  });

  it('an expired lease counts at its worst case as unsettled; its late settlement replaces it, once', async () => {
    const store = factory.create();
    const chain = scopes();
    await store.acquire({ leaseId: 'd', scopes: chain, amountNanoUsd: 40, ttlMs: 30 });
    await new Promise((resolve) => setTimeout(resolve, 80));
    expect((await counters(store, chain))[1]).toEqual(
      scopeCounters({ spentNanoUsd: 40, unsettledNanoUsd: 40, unsettledCalls: 1 }),
    );
    // The room it holds is not handed out again.
    expect(
      await store.acquire({ leaseId: 'e', scopes: chain, amountNanoUsd: 61, ttlMs: 10_000 }),
    ).toMatchObject({
      granted: false,
      reason: 'spend',
    });
    expect(await store.renew([{ leaseId: 'd', scopes: chain }], 10_000)).toEqual(['d']);
    expect(await store.settle('d', chain, { actualNanoUsd: 7 })).toBe(false);
    expect(await store.settle('d', chain, { actualNanoUsd: 7 })).toBe(false);
    expect(await counters(store, chain)).toEqual([
      scopeCounters({ spentNanoUsd: 7 }),
      scopeCounters({ spentNanoUsd: 7 }),
    ]);
  });

  it('a settlement at a worst case counts as unsettled, once', async () => {
    const store = factory.create();
    const chain = scopes();
    await store.acquire({ leaseId: 'f', scopes: chain, amountNanoUsd: 40, ttlMs: 10_000 });
    await store.settle('f', chain, { actualNanoUsd: 40, unsettled: true });
    await store.settle('f', chain, { actualNanoUsd: 40, unsettled: true });
    expect((await counters(store, chain))[0]).toEqual(
      scopeCounters({ spentNanoUsd: 40, unsettledNanoUsd: 40, unsettledCalls: 1 }),
    );
  });
});
