import { createServer } from 'node:net';
import { inspect } from 'node:util';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBudget } from '../src/budget.js';
import { RedisBudgetStore } from '../src/redis-store.js';
import { attemptInfo, callRecord, DOLLAR_PER_OUTPUT_TOKEN } from './support/attempt-info.js';
import { startRedis, type TestRedis } from './support/start-redis.js';

const billed = (cost: number | null) => ({ record: callRecord(cost), error: null, mayHaveBeenBilled: true });

describe('a budget on Redis under faults', () => {
  let redis: TestRedis;
  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(() => redis?.stop());

  function budgetOn(store: RedisBudgetStore, name: string, warnings: string[] = [], extra = {}) {
    return createBudget({
      store,
      scope: { name, limitUsd: 10 },
      maxPricesOf: () => DOLLAR_PER_OUTPUT_TOKEN,
      onWarning: (message) => warnings.push(message),
      ...extra,
    });
  }

  describe('ledger loss', () => {
    it('refuses every call of a scope whose ledger vanished (FLUSHDB) with ledger_lost, until resetLedger', async () => {
      const store = new RedisBudgetStore({ url: redis.url, prefix: 'lost:' });
      const budget = budgetOn(store, 'run-lost');
      const handle = await budget.beforeAttempt(attemptInfo({ maxTokens: 1 }));
      await handle.end(billed(0.5));
      const admin = new Redis(redis.url);
      await admin.flushdb();
      const error = await Promise.resolve(budget.beforeAttempt(attemptInfo({ maxTokens: 1 }))).catch(
        (caught: unknown) => caught,
      );
      expect(error).toMatchObject({
        kind: 'budget',
        reason: 'ledger_lost',
        scope: 'run-lost',
        retryable: false,
      });
      expect((error as Error).message).toMatch(
        /^budget scope "run-lost" refused a call of test-model: its ledger in the store is gone .*Redis restart without persistence, an eviction \(maxmemory-policy\) or a FLUSHDB.*resetLedger\(\)/,
      );
      await expect(budget.usage()).rejects.toMatchObject({ reason: 'ledger_lost' });
      // Another process that saw the ledger refuses too, and adopts the reset once the code decides.
      const other = new RedisBudgetStore({ url: redis.url, prefix: 'lost:' });
      const otherBudget = budgetOn(other, 'run-lost');
      await budget.resetLedger();
      const again = await budget.beforeAttempt(attemptInfo({ maxTokens: 1 }));
      await again.end(billed(0.25));
      const fromOther = await otherBudget.beforeAttempt(attemptInfo({ maxTokens: 1 }));
      await fromOther.end(billed(0.25));
      expect((await budget.usage())[0]).toMatchObject({ spentUsd: 0.5, reservedUsd: 0 });
      admin.disconnect();
      await Promise.all([budget.close(), otherBudget.close()]);
      await Promise.all([store.close(), other.close()]);
    });

    it("starts afresh with a warning when the budget says onLedgerLost: 'start-afresh'", async () => {
      const store = new RedisBudgetStore({ url: redis.url, prefix: 'afresh:' });
      const warnings: string[] = [];
      const budget = budgetOn(store, 'run-afresh', warnings, { onLedgerLost: 'start-afresh' });
      await (await budget.beforeAttempt(attemptInfo({ maxTokens: 1 }))).end(billed(1));
      const admin = new Redis(redis.url);
      await admin.del('afresh:{run-afresh}:state');
      const handle = await budget.beforeAttempt(attemptInfo({ maxTokens: 1 }));
      await handle.end(billed(1));
      expect(warnings.join('\n')).toMatch(/its ledger in the store was gone .* a new one was started/);
      expect((await budget.usage())[0]).toMatchObject({ spentUsd: 1 });
      admin.disconnect();
      await budget.close();
      await store.close();
    });

    it('warns once at connect when maxmemory-policy can evict budget keys', async () => {
      const evicting = await startRedis({ args: ['--maxmemory-policy', 'allkeys-lru'] });
      const warnings: string[] = [];
      const store = new RedisBudgetStore({
        url: evicting.url,
        onWarning: (message) => warnings.push(message),
      });
      const budget = budgetOn(store, 'run-evict');
      for (let call = 0; call < 3; call++) {
        await (await budget.beforeAttempt(attemptInfo({ maxTokens: 1 }))).end(billed(0.1));
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(warnings).toEqual([
        expect.stringMatching(
          /^Redis at 127\.0\.0\.1:\d+ has maxmemory-policy allkeys-lru: it may evict budget keys.*noeviction$/,
        ),
      ]);
      await budget.close();
      await store.close();
      await evicting.stop();
    });
  });

  describe('settlements while Redis is down', () => {
    it('keeps retrying a settlement in order until Redis answers, counts it once, and close() waits for it', async () => {
      const server = await startRedis({ persistence: { dir: await tempDir() } });
      const store = new RedisBudgetStore({ url: server.url, commandTimeoutMs: 300 });
      const warnings: string[] = [];
      const budget = budgetOn(store, 'run-down', warnings, { leaseTtlMs: 60_000 });
      const first = await budget.beforeAttempt(attemptInfo({ maxTokens: 2 }));
      const second = await budget.beforeAttempt(attemptInfo({ maxTokens: 2 }));
      await server.kill();
      void first.end(billed(1));
      void second.end(billed(0.5));
      // Far past the old 1.3 s of retries.
      await new Promise((resolve) => setTimeout(resolve, 2500));
      const back = await startRedis({ port: server.port, persistence: { dir: server.dir } });
      expect(await budget.close({ timeoutMs: 10_000 })).toBe(true);
      expect(warnings.some((message) => /settlement is not recorded yet/.test(message))).toBe(true);
      const reader = budgetOn(new RedisBudgetStore({ url: back.url }), 'run-down');
      expect((await reader.usage())[0]).toMatchObject({
        spentUsd: 1.5,
        reservedUsd: 0,
        inFlight: 0,
        unsettledCalls: 0,
      });
      await store.close();
      await back.stop();
    });

    it('gives up what is still pending when close() times out, with a warning naming the amount', async () => {
      const server = await startRedis();
      const store = new RedisBudgetStore({ url: server.url, commandTimeoutMs: 200 });
      const warnings: string[] = [];
      const budget = budgetOn(store, 'run-gone', warnings);
      const handle = await budget.beforeAttempt(attemptInfo({ maxTokens: 2 }));
      await server.kill();
      void handle.end(billed(1.25));
      expect(await budget.close({ timeoutMs: 300 })).toBe(false);
      expect(warnings.at(-1)).toMatch(
        /^budget closed with 1 settlement\(s\) the store never recorded \(1\.25 USD\)/,
      );
      await store.close();
    });
  });

  describe('figures and errors', () => {
    it('caps a cost beyond what the counters hold exactly, with a warning, never 0', async () => {
      const store = new RedisBudgetStore({ url: redis.url, prefix: 'huge:' });
      const warnings: string[] = [];
      const budget = createBudget({
        store,
        scope: { name: 'run-huge' },
        maxPricesOf: () => DOLLAR_PER_OUTPUT_TOKEN,
        onWarning: (message) => warnings.push(message),
      });
      const handle = await budget.beforeAttempt(attemptInfo({ maxTokens: 1 }));
      await handle.end(billed(1.6e10));
      expect((await budget.usage())[0]).toMatchObject({ spentNanoUsd: 1e15 });
      expect(warnings.join('\n')).toMatch(
        /reported a cost of 16000000000 USD, beyond what a budget counts exactly; 1000000 USD is counted/,
      );
      await expect(budget.beforeAttempt(attemptInfo({ maxTokens: 1e300 }))).rejects.toMatchObject({
        reason: 'spend',
        message: expect.stringMatching(/beyond what a budget counts exactly/),
      });
      await budget.close();
      await store.close();
    });

    it('calls a url that answers MOVED a configuration error saying to pass a Cluster client', async () => {
      // A stand-in for one node of a Redis Cluster: it answers INFO (the client's ready check) and MOVED to the rest.
      const node = createServer((socket) => {
        socket.on('data', (chunk: Buffer) => {
          for (const command of chunk.toString('latin1').split(/\r\n(?=\*)/)) {
            if (!command.startsWith('*')) continue;
            const info = /^\*\d+\r\n\$4\r\ninfo\r\n/i.test(command);
            const body = '# Server\r\nloading:0\r\n';
            socket.write(info ? `$${body.length}\r\n${body}\r\n` : '-MOVED 3999 127.0.0.1:7001\r\n');
          }
        });
      });
      await new Promise<void>((resolve) => node.listen(0, '127.0.0.1', resolve));
      const { port } = node.address() as { port: number };
      const store = new RedisBudgetStore({ url: `redis://127.0.0.1:${port}`, commandTimeoutMs: 1000 });
      const budget = budgetOn(store, 'run-cluster', [], { fallback: {} });
      await expect(budget.beforeAttempt(attemptInfo({ maxTokens: 1 }))).rejects.toMatchObject({
        reason: 'store_misconfigured',
        message: expect.stringContaining(
          `Redis at 127.0.0.1:${port} is a node of a Redis Cluster (it answered MOVED): pass an ioredis Cluster client as the store's client instead of a url); calls are refused until the configuration is fixed, and no fallback is used for it`,
        ),
      });
      await budget.close({ timeoutMs: 0 });
      await store.close();
      await new Promise((resolve) => node.close(resolve));
    });

    it('keeps the password out of every message, cause, inspect output and warning', async () => {
      const guarded = await startRedis({ password: 'hunter2-secret' });
      const url = `redis://:wrong-hunter2-secret@127.0.0.1:${guarded.port}`;
      const store = new RedisBudgetStore({ url, commandTimeoutMs: 500 });
      const warnings: string[] = [];
      const budget = budgetOn(store, 'run-auth', warnings);
      const error = await Promise.resolve(budget.beforeAttempt(attemptInfo({ maxTokens: 1 }))).catch(
        (caught: unknown) => caught,
      );
      expect(error).toMatchObject({ reason: 'store_unreachable' });
      const shown = [inspect(error, { depth: 10 }), inspect(store), JSON.stringify(store), ...warnings].join(
        '\n',
      );
      expect(shown).not.toMatch(/hunter2/);
      expect((error as Error).message).toMatch(
        new RegExp(
          `Redis at 127\\.0\\.0\\.1:${guarded.port}: authentication failed \\((WRONGPASS|NOAUTH)\\)`,
        ),
      );
      expect(() => new RedisBudgetStore({ url: 'http://user:hunter2@host:1' })).toThrow(
        'options.url must be a redis:// or rediss:// address, got http:// at host:1',
      );
      expect(() => new RedisBudgetStore({ url: 'redis://user:hunter2@exa mple:1' })).toThrow(
        /not shown, as it may hold a password/,
      );
      await budget.close({ timeoutMs: 0 });
      await store.close();
      await guarded.stop();
    });
  });
});

async function tempDir(): Promise<string> {
  const { mkdtemp } = await import('node:fs/promises');
  const { tmpdir } = await import('node:os');
  const { join } = await import('node:path');
  return mkdtemp(join(tmpdir(), 'budget-redis-'));
}
