import type { AttemptHandle } from '@switchboard/adapter';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBudget } from '../src/budget.js';
import { RedisBudgetStore } from '../src/redis-store.js';
import { attemptInfo, callRecord, DOLLAR_PER_OUTPUT_TOKEN } from './support/attempt-info.js';
import { startRedis, type TestRedis } from './support/start-redis.js';
import { until } from './support/until.js';

// Issue 29, item 5: after FLUSHDB the running workers refused (ledger_lost), but a worker started
// afterwards opened a new ledger over the marker-less hash, which already held the spend of
// in-flight settlements, and spent the whole limit again (167 % of it). A scope's hash without its
// marker but with figures in it (or a tombstone left by a worker that noticed the loss) is now a
// lost ledger for every process, late ones included, until resetLedger() or 'start-afresh'.

const LIMIT_USD = 10;
const billed = { record: callRecord(1), error: null, mayHaveBeenBilled: true } as const;

describe('ledger loss is sticky (issue 29.5)', () => {
  let redis: TestRedis;
  let admin: Redis;
  const stores: RedisBudgetStore[] = [];
  beforeAll(async () => {
    redis = await startRedis();
    admin = new Redis(redis.url);
  });
  afterAll(async () => {
    admin?.disconnect();
    await Promise.all(stores.map((store) => store.close()));
    await redis?.stop();
  });

  /** A worker: a store and a budget of its own on the shared scope; every call costs its worst case, $1. */
  function worker(scope: string, extra: { leaseTtlMs?: number; onLedgerLost?: 'start-afresh' } = {}) {
    const store = new RedisBudgetStore({ url: redis.url, prefix: 'sticky:' });
    stores.push(store);
    const warnings: string[] = [];
    const budget = createBudget({
      store,
      scope: { name: scope, limitUsd: LIMIT_USD },
      maxPricesOf: () => DOLLAR_PER_OUTPUT_TOKEN,
      onWarning: (message) => warnings.push(message),
      ...extra,
    });
    return { budget, warnings };
  }
  type Worker = ReturnType<typeof worker>;

  /** Tries `count` calls one after another: returns how many were sent (and billed $1) and the refusals' reasons. */
  async function calls(from: Worker, count: number): Promise<{ sent: number; refused: string[] }> {
    let sent = 0;
    const refused: string[] = [];
    for (let call = 0; call < count; call += 1) {
      let handle: AttemptHandle;
      try {
        handle = await from.budget.beforeAttempt(attemptInfo({ maxTokens: 1 }));
      } catch (error) {
        refused.push((error as { reason: string }).reason);
        continue;
      }
      sent += 1;
      await handle.end(billed);
    }
    return { sent, refused };
  }

  it('a worker started after FLUSHDB refuses, while in-flight settlements land in the marker-less hash; resetLedger starts anew', async () => {
    const first = worker('run-flushed');
    const second = worker('run-flushed');
    let billedUsd = (await calls(first, 3)).sent;
    const inFlight = await Promise.all(
      [first, first, second, second].map((from) => from.budget.beforeAttempt(attemptInfo({ maxTokens: 1 }))),
    );
    await admin.flushdb();
    // The calls in flight were answered and billed: their settlements reach the flushed Redis.
    await Promise.all(inFlight.map((handle) => handle.end(billed)));
    billedUsd += inFlight.length;
    const hash = await admin.hgetall('sticky:{run-flushed}:state');
    expect(hash.ledger).toBeUndefined();
    expect(hash).toMatchObject({ spent: String(4 * 1e9), lost: expect.any(String) });

    const late = worker('run-flushed');
    const tries = await Promise.all([late, first, second].map((from) => calls(from, 10)));
    billedUsd += tries.reduce((sum, tried) => sum + tried.sent, 0);
    for (const tried of tries) expect(tried).toEqual({ sent: 0, refused: Array(10).fill('ledger_lost') });
    await expect(late.budget.usage()).rejects.toMatchObject({ reason: 'ledger_lost', scope: 'run-flushed' });
    console.log(`after FLUSHDB: billed ${billedUsd} USD of a ${LIMIT_USD} USD limit before any reset`);
    expect(billedUsd).toBeLessThanOrEqual(LIMIT_USD);

    // The code decides: a new ledger, keeping what the hash holds now (the in-flight settlements).
    await late.budget.resetLedger();
    expect((await late.budget.usage())[0]).toMatchObject({ spentUsd: 4, reservedUsd: 0 });
    expect(await admin.hget('sticky:{run-flushed}:state', 'lost')).toBeNull();
    expect((await calls(late, 4)).sent).toBe(4);
    expect(await calls(first, 4)).toEqual({ sent: 2, refused: ['spend', 'spend'] });
    expect((await first.budget.usage())[0]).toMatchObject({ spentUsd: LIMIT_USD, reservedUsd: 0 });
  });

  it('a worker that finds the ledger gone leaves a tombstone, so a late worker refuses too', async () => {
    const first = worker('run-tomb');
    expect((await calls(first, 2)).sent).toBe(2);
    await admin.flushdb();
    expect(await calls(first, 1)).toEqual({ sent: 0, refused: ['ledger_lost'] });
    expect(await admin.hkeys('sticky:{run-tomb}:state')).toEqual(['lost']);
    expect(await calls(worker('run-tomb'), 3)).toEqual({ sent: 0, refused: Array(3).fill('ledger_lost') });
  });

  it('so does a worker whose renewal finds the ledger gone while its call runs', async () => {
    const first = worker('run-renew', { leaseTtlMs: 300 });
    const handle = await first.budget.beforeAttempt(attemptInfo({ maxTokens: 1 }));
    await admin.flushdb();
    // Its next renewal (every 100 ms) finds the ledger gone and marks it lost: an event, waited for.
    await until(
      async () => (await admin.hkeys('sticky:{run-renew}:state')).includes('lost'),
      'the renewal marking the ledger lost',
    );
    expect(await admin.hkeys('sticky:{run-renew}:state')).toEqual(['lost']);
    expect(await calls(worker('run-renew'), 2)).toEqual({ sent: 0, refused: Array(2).fill('ledger_lost') });
    await handle.end(billed);
    expect(await admin.hget('sticky:{run-renew}:state', 'spent')).toBe(String(1e9));
  });

  it("a late worker made with onLedgerLost: 'start-afresh' warns, starts a new ledger keeping what the hash holds, and stays within the limit", async () => {
    const first = worker('run-afresh-late');
    expect((await calls(first, 2)).sent).toBe(2);
    const running = await first.budget.beforeAttempt(attemptInfo({ maxTokens: 1 }));
    await admin.flushdb();
    await running.end(billed);
    const late = worker('run-afresh-late', { onLedgerLost: 'start-afresh' });
    expect((await calls(late, 20)).sent).toBe(LIMIT_USD - 1);
    expect(late.warnings.join('\n')).toMatch(/its ledger in the store was gone .* a new one was started/);
    expect((await late.budget.usage())[0]).toMatchObject({ spentUsd: LIMIT_USD });
  });

  it('a scope never used before still starts its ledger at once, and a release before any acquisition marks nothing', async () => {
    const store = new RedisBudgetStore({ url: redis.url, prefix: 'sticky:' });
    stores.push(store);
    const scopes = [{ key: '{run-new}', limitNanoUsd: 100, maxInFlight: null }];
    expect(await store.settle('never-acquired', scopes, { actualNanoUsd: 0 })).toBe(false);
    expect(await admin.exists('sticky:{run-new}:state')).toBe(0);
    expect(await store.counters(scopes)).toEqual([expect.objectContaining({ ledgerLost: false })]);
    expect(await calls(worker('run-new'), 2)).toEqual({ sent: 2, refused: [] });
  });
});
