// A budget on a real PostgreSQL, observing real calls to the emulator, while the
// server is SIGKILLed (postmaster and every backend, as a crash) and started again
// on the same data directory. The books after the run are compared with what the
// emulator billed.
import { inspect } from 'node:util';
import { type CallObserver, ChatAdapter, FetchTransport } from '@switchboard/adapter';
import { type Emulator, startEmulator } from '@switchboard/emulator';
import { costOf, priceOf } from '@switchboard/prices';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBudget } from '../src/budget.js';
import type { BudgetStore } from '../src/budget-store.js';
import { PostgresBudgetStore } from '../src/postgres-store.js';
import { attemptInfo, callRecord, DOLLAR_PER_OUTPUT_TOKEN } from './support/attempt-info.js';
import { startRedisProxy } from './support/redis-proxy.js';
import { startPostgres, type TestPostgres } from './support/start-postgres.js';
import { until } from './support/until.js';

const KEY = 'sk-postgres-restart';
const MODEL = 'primary-flash';
const LIMIT_USD = 0.0008;
const LIMIT_NANO = LIMIT_USD * 1e9;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The store, with every failed acquisition noted, and every settlement of a lease id whose acquisition failed. */
function watched(store: BudgetStore) {
  const failed = new Map<string, boolean>();
  const settledAfterFailure: { leaseId: string; ranNothing: boolean }[] = [];
  const wrapper: BudgetStore = {
    async acquire(request) {
      try {
        return await store.acquire(request);
      } catch (error) {
        failed.set(request.leaseId, (error as { ranNothing?: boolean }).ranNothing === true);
        throw error;
      }
    },
    settle(leaseId, scopes, settlement) {
      const ranNothing = failed.get(leaseId);
      if (ranNothing !== undefined) settledAfterFailure.push({ leaseId, ranNothing });
      return store.settle(leaseId, scopes, settlement);
    },
    renew: (leases, ttlMs) => store.renew(leases, ttlMs),
    counters: (scopes) => store.counters(scopes),
  };
  return { wrapper, failed, settledAfterFailure };
}

describe('a budget on PostgreSQL through a server crash', () => {
  let postgres: TestPostgres;
  let emulator: Emulator;

  beforeAll(async () => {
    postgres = await startPostgres();
    // Every reply takes a while, so the crash finds calls in flight.
    emulator = await startEmulator({ key: KEY, faults: [{ delayMs: 250 }] });
  });
  afterAll(async () => {
    await emulator?.close();
    await postgres?.stop();
  });

  it('SIGKILL and restart: no settled spend lost, nothing over the limit, no ledger_lost, refusals meanwhile queue no release', async () => {
    const store = new PostgresBudgetStore({ url: postgres.url, schema: 'crash' });
    const { wrapper, failed, settledAfterFailure } = watched(store);
    const warnings: string[] = [];
    const budget = createBudget({
      store: wrapper,
      scope: { name: 'crash-run', limitUsd: LIMIT_USD, maxInFlight: 6 },
      slotWaitMs: 30_000,
      onWarning: (message) => warnings.push(message),
    });
    const adapter = new ChatAdapter(
      new FetchTransport({ apiKey: KEY, baseUrl: emulator.url, maxAttempts: 1 }),
      {
        observers: [budget as CallObserver],
        endpoint: { cost: (usage: unknown) => costOf(priceOf(MODEL), usage) },
        disableThinking: false,
      },
    );
    let granted = 0;
    let stop = false;
    let recordsNanoUsd = 0;
    const refusals: Record<string, number> = {};
    const failures: Record<string, number> = {};
    async function lane(lane: number): Promise<void> {
      for (let call = 0; !stop; call++) {
        try {
          const response = await adapter.complete({
            model: MODEL,
            messages: [
              { role: 'user', content: `Lane ${lane}, call ${call}: why did step ${call % 7} fail?` },
            ],
            maxTokens: 48,
            timeoutSeconds: 10,
          });
          granted += 1;
          recordsNanoUsd += response.costNanoUsd ?? 0;
        } catch (error) {
          const { kind, reason } = error as { kind?: string; reason?: string };
          if (kind === 'budget' && reason !== undefined) refusals[reason] = (refusals[reason] ?? 0) + 1;
          else failures[kind ?? 'other'] = (failures[kind ?? 'other'] ?? 0) + 1;
          await sleep(reason === 'store_unreachable' ? 50 : 20);
        }
      }
    }
    const lanes = Promise.all(Array.from({ length: 6 }, (_, index) => lane(index)));
    // Crash once calls are in flight and some have settled.
    await until(() => granted >= 3, 'three calls granted');
    await postgres.kill();
    await sleep(1500);
    await postgres.restart();
    const atRestart = { granted, refused: refusals.store_unreachable ?? 0 };
    // Until the limit stops the run (settlements queued in the outage are retried with backoff first).
    await until(() => (refusals.spend ?? 0) > 0, 'the limit refusing a call', { everyMs: 100 });
    stop = true;
    await lanes;
    expect(await budget.close({ timeoutMs: 30_000 }), 'every settlement recorded').toBe(true);

    expect(refusals.ledger_lost ?? 0).toBe(0);
    // A restart of a durable store says nothing about a ledger being gone: what it warns of is
    // settlements waiting for the server, nothing else.
    expect(warnings.filter((warning) => /ledger/i.test(warning))).toEqual([]);
    expect(refusals.store_unreachable ?? 0, 'calls during the outage are refused').toBeGreaterThan(0);
    expect(failures, 'no call failed otherwise').toEqual({});
    expect(refusals.spend ?? 0, 'the limit stopped the run').toBeGreaterThan(0);
    expect(granted).toBeGreaterThan(atRestart.granted);
    // Refused because the server could not be reached: nothing queued to release them.
    const surelyNothing = [...failed.values()].filter(Boolean).length;
    expect(surelyNothing).toBeGreaterThan(0);
    expect(settledAfterFailure.filter((entry) => entry.ranNothing)).toEqual([]);
    // Only an acquisition whose statement was sent and unanswered (it may have committed) may owe a release.
    // (A release is retried while the server is away: counted once per lease.)
    expect(new Set(settledAfterFailure.map((entry) => entry.leaseId)).size).toBeLessThanOrEqual(
      failed.size - surelyNothing,
    );

    // A reader made afterwards (another process's view) finds the books.
    const reader = new PostgresBudgetStore({ url: postgres.url, schema: 'crash' });
    const [root] = await reader.counters([{ key: '{crash-run}', limitNanoUsd: LIMIT_NANO, maxInFlight: 6 }]);
    await reader.close();
    await store.close();
    const billed = emulator.bill().totalNanoUsd;
    expect(root).toMatchObject({ reservedNanoUsd: 0, inFlight: 0 });
    expect(billed).toBeGreaterThan(0);
    expect(billed).toBeLessThanOrEqual(LIMIT_NANO);
    expect(root?.spentNanoUsd).toBeLessThanOrEqual(LIMIT_NANO);
    // Every settled record is in the books; anything else at its worst case, marked unsettled.
    expect(root?.spentNanoUsd).toBe(recordsNanoUsd + (root?.unsettledNanoUsd ?? 0));
    expect((root?.spentNanoUsd ?? 0) - (root?.unsettledNanoUsd ?? 0)).toBeLessThanOrEqual(billed);
    expect(billed).toBeLessThanOrEqual(root?.spentNanoUsd ?? 0);
  });

  it("survives a server kill with a caller's pool: errors on its pooled connections are caught, calls refused, then served", async () => {
    const pool = new pg.Pool({ connectionString: postgres.url, max: 4, connectionTimeoutMillis: 1000 });
    const store = new PostgresBudgetStore({ pool, schema: 'pooled' });
    const scopes = [{ key: '{pooled}', limitNanoUsd: 1000, maxInFlight: null }];
    // Connections in the pool, idle, when the server dies.
    await Promise.all(
      [1, 2, 3].map((n) => store.acquire({ leaseId: `p${n}`, scopes, amountNanoUsd: 10, ttlMs: 60_000 })),
    );
    await store.settle('p1', scopes, { actualNanoUsd: 7 });
    await postgres.kill();
    await sleep(200);
    const refused = await store
      .acquire({ leaseId: 'p4', scopes, amountNanoUsd: 10, ttlMs: 60_000 })
      .catch((error) => error);
    expect(refused).toMatchObject({ name: 'StoreError', ranNothing: true });
    expect(String(refused.message)).not.toContain(postgres.password);
    await postgres.restart();
    expect(await store.settle('p2', scopes, { actualNanoUsd: 5 })).toBe(true);
    expect(await store.settle('p2', scopes, { actualNanoUsd: 5 })).toBe(true);
    expect(await store.counters(scopes)).toEqual([
      { spentNanoUsd: 12, reservedNanoUsd: 10, inFlight: 1, unsettledNanoUsd: 0, unsettledCalls: 0 },
    ]);
    await store.close();
    await pool.end();
  });

  it('a statement whose reply is lost: the acquisition is released behind it, the settlement retried and counted once', async () => {
    // A TCP proxy that lets the function call (its own transaction) reach the server, then drops the connection before its answer.
    const proxy = await startRedisProxy(postgres.port);
    const url = postgres.url.replace(`:${postgres.port}/`, `:${new URL(proxy.url).port}/`);
    const store = new PostgresBudgetStore({ url, schema: 'lost_reply' });
    await store.migrate();
    const budget = createBudget({
      store,
      scope: { name: 'lost-reply', limitUsd: 10 },
      maxPricesOf: () => DOLLAR_PER_OUTPUT_TOKEN,
      onWarning: () => {},
    });
    const lost = proxy.dropReplyTo('budget_acquire');
    const refused = await Promise.resolve(budget.beforeAttempt(attemptInfo())).catch((error) => error);
    await lost;
    // It did commit: the store cannot know, so the error does not say it ran nothing, and a release follows.
    expect(refused).toMatchObject({ kind: 'budget', reason: 'store_unreachable' });
    expect(refused.cause).toMatchObject({ ranNothing: false });
    await until(
      async () => (await budget.usage())[0]?.inFlight === 0,
      'the release of the lost acquisition',
      {
        everyMs: 50,
      },
    );
    expect((await budget.usage())[0]).toMatchObject({ reservedUsd: 0, inFlight: 0, spentUsd: 0 });
    // The lease was granted (committed), then released by the budget: its record says so.
    const admin = new pg.Client({ connectionString: postgres.url });
    await admin.connect();
    const { rows } = await admin.query(
      "SELECT reserved_nano_usd, actual_nano_usd FROM lost_reply.budget_lease_records WHERE state = 'ended'",
    );
    await admin.end();
    expect(rows).toEqual([{ reserved_nano_usd: '3000000000', actual_nano_usd: '0' }]);

    const handle = await budget.beforeAttempt(attemptInfo());
    const dropped = proxy.dropReplyTo('budget_settle');
    await handle.end({
      record: callRecord(1.25),
      error: null,
      mayHaveBeenBilled: true,
    });
    await dropped;
    expect(await budget.idle({ timeoutMs: 10_000 })).toBe(true);
    expect((await budget.usage())[0]).toMatchObject({
      spentNanoUsd: 1_250_000_000,
      reservedUsd: 0,
      inFlight: 0,
    });
    expect(proxy.dropped).toBe(2);
    await budget.close({ timeoutMs: 1000 });
    await store.close();
    await proxy.close();
  });

  it('runs as a user granted only USAGE and SELECT, INSERT, UPDATE, DELETE on tables a DBA made', async () => {
    const dba = new PostgresBudgetStore({ url: postgres.url, schema: 'granted' });
    await dba.migrate();
    await dba.close();
    const admin = new pg.Client({ connectionString: postgres.url });
    await admin.connect();
    await admin.query("CREATE ROLE budget_user LOGIN PASSWORD 'budget-user-secret'");
    await admin.query('GRANT USAGE ON SCHEMA granted TO budget_user');
    await admin.query('GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA granted TO budget_user');
    await admin.query('REVOKE CREATE ON SCHEMA public FROM PUBLIC');
    await admin.end();
    const url = postgres.url.replace(`switchboard:${postgres.password}@`, 'budget_user:budget-user-secret@');
    const store = new PostgresBudgetStore({ url, schema: 'granted' });
    const scopes = [{ key: '{granted}', limitNanoUsd: 100, maxInFlight: null }];
    expect(await store.acquire({ leaseId: 'g1', scopes, amountNanoUsd: 40, ttlMs: 10_000 })).toMatchObject({
      granted: true,
    });
    expect(await store.settle('g1', scopes, { actualNanoUsd: 30 })).toBe(true);
    // A schema it may not create: refused, saying what to grant, without the password.
    const denied = new PostgresBudgetStore({ url, schema: 'elsewhere' });
    const error = await denied.migrate().catch((caught: unknown) => caught);
    expect(String((error as Error).message)).toMatch(/permission denied \(42501\)/);
    expect(String((error as Error).message)).not.toContain('budget-user-secret');
    await denied.close();
    await store.close();
  });

  it('keeps the password out of every message, cause and inspect output', async () => {
    const wrong = postgres.url.replace(postgres.password, 'not-the-password-42');
    const store = new PostgresBudgetStore({ url: wrong, schema: 'secrets' });
    expect(inspect(store)).not.toContain('not-the-password-42');
    expect(JSON.stringify(store)).not.toContain('not-the-password-42');
    const budget = createBudget({ store, scope: { name: 'secret-run', limitUsd: 1 }, onWarning: () => {} });
    const error = await Promise.resolve(
      budget.beforeAttempt(attemptInfo({ model: MODEL, maxTokens: 8 })),
    ).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ kind: 'budget', reason: 'store_unreachable' });
    const text = `${String((error as Error).message)} ${inspect(error, { depth: 8 })}`;
    expect(text).toContain('28P01');
    expect(text).not.toContain('not-the-password-42');
    await budget.close({ timeoutMs: 0 });
  });
});
