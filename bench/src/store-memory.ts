// What a call leaves in a shared store while its records are retained (`retentionMs`, default 1 h): on Redis the
// growth of `used_memory` and of the key count, on PostgreSQL the growth of the budget schema's tables (heap,
// indexes, TOAST), per call, for calls settled at their cost and for calls counted at their worst case (their
// cost unknown). One budget tree (a root and a role), calls made one after another; servers started here and
// stopped by PID. A platform team sizes Redis's `maxmemory` and PostgreSQL's disk from it.
//
// Usage: pnpm bench:store-memory [--calls 20000] [--stores redis,postgres]
import { parseArgs } from 'node:util';
import { type BudgetStore, createBudget, PostgresBudgetStore, RedisBudgetStore } from '@switchboard/budget';
import { startPostgres } from '../../packages/budget/test/support/start-postgres.js';
import { startRedis } from '../../packages/budget/test/support/start-redis.js';
import { connectPg, requireFromBudget } from './budget-dependencies.js';
import { BUDGET_INFO, BUDGET_PRICES, BUDGET_RECORD } from './budget-settings.js';

const { values } = parseArgs({
  options: {
    calls: { type: 'string', default: '20000' },
    stores: { type: 'string', default: 'redis,postgres' },
  },
});
const calls = Number(values.calls);
if (!Number.isInteger(calls) || calls < 100) {
  throw new Error(`--calls must be an integer of at least 100, got ${JSON.stringify(values.calls)}`);
}
const stores = values.stores.split(',');
for (const store of stores) {
  if (store !== 'redis' && store !== 'postgres') {
    throw new Error(`--stores: unknown store ${JSON.stringify(store)} (known: redis, postgres)`);
  }
}

const SCHEMA = 'bench_memory';
/** Kinds of call: settled at the record's cost, or counted at the worst case (no record: the cost is unknown). */
const KINDS = [
  { name: 'settled at its cost', outcome: { record: BUDGET_RECORD, error: null, mayHaveBeenBilled: true } },
  {
    name: 'counted at its worst case',
    outcome: { record: null, error: new Error('lost'), mayHaveBeenBilled: true },
  },
] as const;

/** What one store is measured by: a size in bytes and a count of items (keys, rows). */
interface Gauge {
  readonly unit: string;
  size(): Promise<number>;
  items(): Promise<number>;
  close(): Promise<void>;
}

async function measure(name: string, store: BudgetStore, gauge: Gauge): Promise<void> {
  const budget = createBudget({
    store,
    ownsStore: true,
    scope: { name: 'svc', limitUsd: 1_000_000 },
    roles: { judge: { limitUsd: 1_000_000 } },
    maxPricesOf: () => BUDGET_PRICES,
    // The worst-case calls are what this bench makes on purpose: no warning per call.
    onWarning: () => {},
  });
  const info = { ...BUDGET_INFO, role: 'judge' };
  const call = async (outcome: (typeof KINDS)[number]['outcome']) => {
    const handle = await budget.beforeAttempt(info);
    await handle.end(outcome);
  };
  // The scopes' own keys and rows exist before the first measure.
  for (let warm = 0; warm < 100; warm++) await call(KINDS[0].outcome);
  for (const kind of KINDS) {
    const [size, items] = [await gauge.size(), await gauge.items()];
    for (let made = 0; made < calls; made++) {
      await call(kind.outcome);
      if ((made + 1) % 5_000 === 0) process.stderr.write(`${name}, ${kind.name}: ${made + 1} of ${calls}\n`);
    }
    const grown = (await gauge.size()) - size;
    const added = (await gauge.items()) - items;
    console.log(
      `| ${name} | ${kind.name} | ${calls.toLocaleString('en')} | ${Math.round(grown / calls)} | ${(added / calls).toFixed(2)} ${gauge.unit} |`,
    );
  }
  await budget.close({ timeoutMs: 10_000 });
  await gauge.close();
}

console.log(`| store | call | calls | bytes a call | items a call |`);
console.log('|---|---|---:|---:|---|');
if (stores.includes('redis')) {
  const redis = await startRedis();
  const { Redis } = requireFromBudget('ioredis') as {
    Redis: new (
      url: string,
    ) => { info(section: string): Promise<string>; dbsize(): Promise<number>; quit(): Promise<unknown> };
  };
  const client = new Redis(redis.url);
  try {
    await measure('Redis (`used_memory`)', new RedisBudgetStore({ url: redis.url }), {
      unit: 'keys',
      size: async () => Number(/^used_memory:(\d+)/m.exec(await client.info('memory'))?.[1] ?? Number.NaN),
      items: () => client.dbsize(),
      close: async () => {
        await client.quit();
      },
    });
  } finally {
    await redis.stop();
  }
}
if (stores.includes('postgres')) {
  const postgres = await startPostgres();
  const client = await connectPg(postgres.url);
  const tables = `SELECT c.oid FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE n.nspname = '${SCHEMA}' AND c.relkind = 'r'`;
  try {
    await measure(
      'PostgreSQL (tables, indexes, TOAST)',
      new PostgresBudgetStore({ url: postgres.url, schema: SCHEMA }),
      {
        unit: 'rows',
        size: async () =>
          Number(
            (
              await client.query(
                `SELECT coalesce(sum(pg_total_relation_size(oid)), 0) AS size FROM (${tables}) t`,
              )
            ).rows[0]?.size,
          ),
        items: async () => {
          const { rows } = await client.query(
            `SELECT coalesce(sum(n_live_tup), 0) AS live FROM pg_stat_user_tables WHERE schemaname = '${SCHEMA}'`,
          );
          return Number(rows[0]?.live);
        },
        close: () => client.end(),
      },
    );
  } finally {
    await postgres.stop();
  }
}
