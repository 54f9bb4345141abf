// The conformance kit (test/conformance/store-kit.ts) for every store of this package:
// memory, Redis (with an append-only file fsynced on every write, so a crash keeps the
// ledger) and PostgreSQL, each on a real server this file starts.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BudgetStore } from '../src/budget-store.js';
import { MemoryBudgetStore } from '../src/memory-store.js';
import { PostgresBudgetStore } from '../src/postgres-store.js';
import { RedisBudgetStore } from '../src/redis-store.js';
import { type ConformanceTarget, describeStoreConformance } from './conformance/store-kit.js';
import { startPostgres, type TestPostgres } from './support/start-postgres.js';
import { startRedis, type TestRedis } from './support/start-redis.js';

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
    async tearDown() {
      await Promise.all(stores.map((store) => store.close?.()));
      await postgres?.stop();
    },
  };
}

describeStoreConformance(memoryTarget());
describeStoreConformance(redisTarget());
describeStoreConformance(postgresTarget());
