// ioredis 6 (what `npm install ioredis` gives now; 5 is what the other suites run on): the
// conformance kit for a RedisBudgetStore given a caller's ioredis 6 client (RESP3 through
// HELLO 3, its defaults), on a real redis-server with an append-only file fsynced on every
// write: the contract, peers, a crash, worker processes and lost replies. A store from a url
// on ioredis 6 is run by redis-close.test.ts (test/support/ioredis-6.cjs).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis6';
import { describe, expect, it } from 'vitest';
import type { BudgetStore } from '../src/budget-store.js';
import { ACQUIRE_SCRIPT, SETTLE_SCRIPT } from '../src/redis-scripts.js';
import { RedisBudgetStore } from '../src/redis-store.js';
import { Ioredis6RedisBudgetStore } from './conformance/ioredis6-store.js';
import { type ConformanceTarget, describeStoreConformance } from './conformance/store-kit.js';
import { scriptSha, startRedisProxy } from './support/redis-proxy.js';
import { startRedis, type TestRedis } from './support/start-redis.js';

function ioredis6Target(): ConformanceTarget {
  let redis: TestRedis | null = null;
  let dir = '';
  const stores: BudgetStore[] = [];
  const options = () => {
    if (redis === null) throw new Error('redis-server is not running');
    return { url: redis.url, prefix: 'kit6:' };
  };
  return {
    name: 'RedisBudgetStore with an ioredis 6 client (appendfsync always)',
    shared: true,
    durable: true,
    async setUp() {
      dir = mkdtempSync(join(tmpdir(), 'budget-kit-ioredis6-'));
      redis = await startRedis({ persistence: { dir } });
    },
    create() {
      const store = new Ioredis6RedisBudgetStore(options());
      stores.push(store);
      return store;
    },
    async crash(during) {
      const running = redis as TestRedis;
      await running.kill();
      await during();
      redis = await startRedis({ port: running.port, persistence: { dir } });
    },
    processStore: () => ({
      module: fileURLToPath(new URL('./conformance/ioredis6-store.ts', import.meta.url)),
      exportName: 'Ioredis6RedisBudgetStore',
      options: options(),
    }),
    async lossyStore() {
      const proxy = await startRedisProxy((redis as TestRedis).port);
      const store = new Ioredis6RedisBudgetStore({ url: proxy.url, prefix: 'kit6:' });
      return {
        store,
        loseReplyTo: (operation) =>
          proxy.dropReplyTo(
            [operation === 'acquire' ? ACQUIRE_SCRIPT : SETTLE_SCRIPT].flatMap((lua) => [
              scriptSha(lua),
              lua,
            ]),
          ),
        async close() {
          await store.close();
          await proxy.close();
        },
      };
    },
    async tearDown() {
      await Promise.all(stores.map((store) => store.close?.()));
      await redis?.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

describeStoreConformance(ioredis6Target());

describe("RedisBudgetStore with an ioredis 6 client and RESP3's own reply shapes (replyMapping: 'resp3')", () => {
  it('reserves, settles, counts and still warns of an evicting policy (CONFIG GET answered as a map)', async () => {
    const redis = await startRedis({ args: ['--maxmemory-policy', 'allkeys-lru'] });
    const client = new Redis(redis.url, { replyMapping: 'resp3', maxRetriesPerRequest: 1 });
    let warned: (message: string) => void = () => {};
    const warning = new Promise<string>((resolve) => {
      warned = resolve;
    });
    const store = new RedisBudgetStore({ client, prefix: 'resp3:', onWarning: (message) => warned(message) });
    try {
      const scopes = [{ key: '{resp3}', limitNanoUsd: 100, maxInFlight: 2 }];
      expect(await store.acquire({ leaseId: 'a', scopes, amountNanoUsd: 60, ttlMs: 10_000 })).toMatchObject({
        granted: true,
      });
      expect(await store.acquire({ leaseId: 'b', scopes, amountNanoUsd: 60, ttlMs: 10_000 })).toMatchObject({
        granted: false,
        reason: 'reserved',
      });
      expect(await store.settle('a', scopes, { actualNanoUsd: 25 })).toBe(true);
      expect((await store.counters(scopes))[0]).toMatchObject({
        spentNanoUsd: 25,
        reservedNanoUsd: 0,
        inFlight: 0,
      });
      expect(await warning).toMatch(/has maxmemory-policy allkeys-lru: it may evict budget keys/);
    } finally {
      await store.close();
      client.disconnect();
      await redis.stop();
    }
  });
});
