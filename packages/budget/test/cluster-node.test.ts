// A url naming one node of a Redis Cluster is a configuration error before any call is
// granted, for every scope name, whichever slots that node serves; an ioredis Cluster
// client over the same nodes works. Two real redis-server processes in cluster mode, each
// serving half of the slots.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Cluster, Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBudget } from '../src/budget.js';
import { RedisBudgetStore } from '../src/redis-store.js';
import { attemptInfo, callRecord, DOLLAR_PER_OUTPUT_TOKEN } from './support/attempt-info.js';
import { startRedis, type TestRedis } from './support/start-redis.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('a url naming one node of a Redis Cluster', () => {
  const nodes: TestRedis[] = [];
  beforeAll(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'budget-cluster-'));
    for (const name of ['a', 'b']) {
      nodes.push(
        await startRedis({
          args: ['--cluster-enabled', 'yes', '--cluster-config-file', join(dir, `nodes-${name}.conf`)],
        }),
      );
    }
    const [a, b] = nodes as [TestRedis, TestRedis];
    const admins = nodes.map((node) => new Redis(node.url));
    try {
      await admins[0]?.call('CLUSTER', 'ADDSLOTSRANGE', '0', '8191');
      await admins[1]?.call('CLUSTER', 'ADDSLOTSRANGE', '8192', '16383');
      await admins[0]?.call('CLUSTER', 'MEET', '127.0.0.1', String(b.port));
      const deadline = Date.now() + 30_000;
      for (;;) {
        const states = await Promise.all(admins.map((admin) => admin.call('CLUSTER', 'INFO')));
        if (states.every((state) => /cluster_state:ok/.test(String(state)))) break;
        if (Date.now() > deadline) throw new Error(`the cluster did not form: ${String(states[0])}`);
        await sleep(100);
      }
    } finally {
      for (const admin of admins) admin.disconnect();
    }
    expect(a.port).not.toBe(b.port);
  }, 60_000);
  afterAll(async () => {
    for (const node of nodes) await node.stop();
  });

  // `{b}` hashes to slot 3300 (node a), `{a}` to 15495 (node b): before, the first was granted
  // through node a's url and the second refused with MOVED.
  it.each(['b', 'a', 'run-42'])(
    'is refused before any grant, as a configuration error, for scope %s',
    async (name) => {
      const [a] = nodes as [TestRedis];
      const store = new RedisBudgetStore({ url: a.url, commandTimeoutMs: 2000 });
      const budget = createBudget({
        store,
        ownsStore: true,
        scope: { name, limitUsd: 10 },
        maxPricesOf: () => DOLLAR_PER_OUTPUT_TOKEN,
        fallback: {},
        onWarning: () => {},
      });
      try {
        for (let call = 0; call < 2; call++) {
          await expect(budget.beforeAttempt(attemptInfo({ maxTokens: 1 }))).rejects.toMatchObject({
            reason: 'store_unreachable',
            message: expect.stringContaining(
              `Redis at 127.0.0.1:${a.port} is a node of a Redis Cluster (cluster_enabled:1): one node serves only some of the hash slots, so a budget would work for some scope names and fail for others; pass an ioredis Cluster client as the store's client instead of a url); calls are refused until the configuration is fixed`,
            ),
          });
        }
        // Not a call was granted, nor anything written, on either node.
        for (const node of nodes) {
          const admin = new Redis(node.url);
          expect(await admin.dbsize()).toBe(0);
          admin.disconnect();
        }
      } finally {
        await budget.close({ timeoutMs: 1000 });
      }
    },
  );

  it('works through an ioredis Cluster client for every scope name', async () => {
    const [a] = nodes as [TestRedis];
    const client = new Cluster([{ host: '127.0.0.1', port: a.port }]);
    const store = new RedisBudgetStore({ client });
    try {
      for (const name of ['b', 'a']) {
        const budget = createBudget({
          store,
          scope: { name, limitUsd: 10 },
          maxPricesOf: () => DOLLAR_PER_OUTPUT_TOKEN,
          onWarning: () => {},
        });
        const handle = await budget.beforeAttempt(attemptInfo({ maxTokens: 2 }));
        await handle.end({ record: callRecord(1), error: null, mayHaveBeenBilled: true });
        expect((await budget.usage())[0]).toMatchObject({ spentUsd: 1, reservedUsd: 0 });
        await budget.close();
      }
    } finally {
      await store.close();
      client.disconnect();
    }
  });
});
