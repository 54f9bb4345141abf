import type { BudgetStore } from '../../src/budget-store.js';
import { MemoryBudgetStore } from '../../src/memory-store.js';
import { PostgresBudgetStore } from '../../src/postgres-store.js';
import { RedisBudgetStore } from '../../src/redis-store.js';
import { startPostgres, type TestPostgres } from './start-postgres.js';
import { startRedis, type TestRedis } from './start-redis.js';

/** A way to make stores for the behaviour suite: set up once, a fresh store per test, torn down after. */
export interface StoreFactory {
  readonly name: string;
  setUp(): Promise<void>;
  create(): BudgetStore;
  tearDown(): Promise<void>;
}

/** The in-memory store. */
export function memoryStores(): StoreFactory {
  return {
    name: 'MemoryBudgetStore',
    setUp: async () => {},
    create: () => new MemoryBudgetStore(),
    tearDown: async () => {},
  };
}

/** Stores on a real redis-server started for the suite; each store gets its own key prefix. */
export function redisStores(): StoreFactory {
  let redis: TestRedis | null = null;
  const stores: RedisBudgetStore[] = [];
  return {
    name: 'RedisBudgetStore',
    async setUp() {
      redis = await startRedis();
    },
    create() {
      if (!redis) throw new Error('redis-server is not running');
      const store = new RedisBudgetStore({ url: redis.url, prefix: `test:${stores.length}:` });
      stores.push(store);
      return store;
    },
    async tearDown() {
      await Promise.all(stores.map((store) => store.close()));
      await redis?.stop();
    },
  };
}

/** Stores on a real PostgreSQL server started for the suite (initdb into a temporary directory); each store gets its own schema. */
export function postgresStores(): StoreFactory {
  let postgres: TestPostgres | null = null;
  const stores: PostgresBudgetStore[] = [];
  return {
    name: 'PostgresBudgetStore',
    async setUp() {
      postgres = await startPostgres();
    },
    create() {
      if (!postgres) throw new Error('postgres is not running');
      const store = new PostgresBudgetStore({ url: postgres.url, schema: `test_${stores.length}` });
      stores.push(store);
      return store;
    },
    async tearDown() {
      await Promise.all(stores.map((store) => store.close()));
      await postgres?.stop();
    },
  };
}
