// The conformance kit (test/conformance/store-kit.ts) for every store of this package:
// memory, Redis (with an append-only file fsynced on every write, so a crash keeps the
// ledger), Redis Cluster (three masters, each so persisted, through an ioredis Cluster
// client) and PostgreSQL, each on real servers this file starts.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BudgetStore } from '../src/budget-store.js';
import { MemoryBudgetStore } from '../src/memory-store.js';
import { PostgresBudgetStore } from '../src/postgres-store.js';
import { ACQUIRE_SCRIPT, SETTLE_SCRIPT } from '../src/redis-scripts.js';
import { RedisBudgetStore } from '../src/redis-store.js';
import { ClusterRedisBudgetStore } from './conformance/cluster-store.js';
import { type ConformanceTarget, describeStoreConformance } from './conformance/store-kit.js';
import { scriptSha, startRedisProxy } from './support/redis-proxy.js';
import { startPostgres, type TestPostgres } from './support/start-postgres.js';
import { startRedis, type TestRedis } from './support/start-redis.js';
import { startRedisCluster, type TestRedisCluster } from './support/start-redis-cluster.js';

const source = (file: string) => fileURLToPath(new URL(`../src/${file}`, import.meta.url));

function memoryTarget(): ConformanceTarget {
  const store = new MemoryBudgetStore();
  return {
    name: 'MemoryBudgetStore',
    shared: false,
    setUp: async () => {},
    create: () => store,
    tearDown: async () => {},
  };
}

function redisTarget(): ConformanceTarget {
  let redis: TestRedis | null = null;
  let dir = '';
  const stores: BudgetStore[] = [];
  const url = () => {
    if (redis === null) throw new Error('redis-server is not running');
    return redis.url;
  };
  return {
    name: 'RedisBudgetStore (appendfsync always)',
    shared: true,
    durable: true,
    async setUp() {
      dir = mkdtempSync(join(tmpdir(), 'budget-kit-redis-'));
      redis = await startRedis({ persistence: { dir } });
    },
    create() {
      const store = new RedisBudgetStore({ url: url(), prefix: 'kit:' });
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
      module: source('redis-store.ts'),
      exportName: 'RedisBudgetStore',
      options: { url: url(), prefix: 'kit:' },
    }),
    async lossyStore() {
      const proxy = await startRedisProxy((redis as TestRedis).port);
      const store = new RedisBudgetStore({ url: proxy.url, prefix: 'kit:' });
      return {
        store,
        loseReplyTo: (operation) =>
          proxy.dropReplyTo(
            // ioredis sends a script's text (EVAL) the first time on a connection, then its SHA1 (EVALSHA).
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

function postgresTarget(): ConformanceTarget {
  let postgres: TestPostgres | null = null;
  const stores: BudgetStore[] = [];
  const url = () => {
    if (postgres === null) throw new Error('postgres is not running');
    return postgres.url;
  };
  return {
    name: 'PostgresBudgetStore',
    shared: true,
    durable: true,
    async setUp() {
      postgres = await startPostgres();
    },
    create() {
      const store = new PostgresBudgetStore({ url: url(), schema: 'kit' });
      stores.push(store);
      return store;
    },
    async crash(during) {
      const running = postgres as TestPostgres;
      await running.kill();
      await during();
      await running.restart();
    },
    processStore: () => ({
      module: source('postgres-store.ts'),
      exportName: 'PostgresBudgetStore',
      options: { url: url(), schema: 'kit' },
    }),
    async lossyStore() {
      const running = postgres as TestPostgres;
      const proxy = await startRedisProxy(running.port);
      const store = new PostgresBudgetStore({
        url: running.url.replace(`:${running.port}/`, `:${new URL(proxy.url).port}/`),
        schema: 'kit',
      });
      return {
        store,
        // Each operation is one function call: its name is in the statement's text.
        loseReplyTo: (operation) =>
          proxy.dropReplyTo(operation === 'acquire' ? 'budget_acquire' : 'budget_settle'),
        async close() {
          await store.close();
          await proxy.close();
        },
      };
    },
    async tearDown() {
      await Promise.all(stores.map((store) => store.close?.()));
      await postgres?.stop();
    },
  };
}

function redisClusterTarget(): ConformanceTarget {
  let cluster: TestRedisCluster | null = null;
  const stores: BudgetStore[] = [];
  const options = () => {
    if (cluster === null) throw new Error('the Redis Cluster is not running');
    return { nodes: cluster.nodes, prefix: 'kit:' };
  };
  return {
    name: 'RedisBudgetStore on a Redis Cluster (3 masters, appendfsync always)',
    shared: true,
    durable: true,
    async setUp() {
      cluster = await startRedisCluster();
    },
    create() {
      const store = new ClusterRedisBudgetStore(options());
      stores.push(store);
      return store;
    },
    crash: (during) => (cluster as TestRedisCluster).crash(during),
    processStore: () => ({
      module: fileURLToPath(new URL('./conformance/cluster-store.ts', import.meta.url)),
      exportName: 'ClusterRedisBudgetStore',
      options: options(),
    }),
    async tearDown() {
      await Promise.all(stores.map((store) => store.close?.()));
      await cluster?.stop();
    },
  };
}

describeStoreConformance(memoryTarget());
describeStoreConformance(redisTarget());
describeStoreConformance(redisClusterTarget());
describeStoreConformance(postgresTarget());
