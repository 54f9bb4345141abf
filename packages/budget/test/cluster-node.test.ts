// A url naming one node of a Redis Cluster is a configuration error before any call is
// granted, for every scope name, whichever slots that node serves, refused as
// `store_misconfigured` and never served by a fallback, also when the url comes to name
// such a node after an outage the fallback covered; an ioredis Cluster client over the
// same nodes works. Two real redis-server processes in cluster mode, each serving half of
// the slots.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AttemptHandle } from '@switchboard/adapter';
import { Cluster, Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBudget } from '../src/budget.js';
import type { BudgetStore } from '../src/budget-store.js';
import { RedisBudgetStore } from '../src/redis-store.js';
import { attemptInfo, callRecord, DOLLAR_PER_OUTPUT_TOKEN } from './support/attempt-info.js';
import { startRedis, type TestRedis } from './support/start-redis.js';
import { startTcpForwarder, type TcpForwarder } from './support/tcp-forwarder.js';

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
  // A scope without a limit: the fallback could serve it at once during an outage.
  it.each([
    ['b', 10],
    ['a', 10],
    ['run-42', 10],
    ['unlimited', undefined],
  ])(
    'is refused before any grant, as a configuration error, never by the fallback, for scope %s',
    async (name, limitUsd) => {
      const [a] = nodes as [TestRedis];
      const store = new RedisBudgetStore({ url: a.url, commandTimeoutMs: 2000 });
      const warnings: string[] = [];
      const budget = createBudget({
        store,
        ownsStore: true,
        scope: limitUsd === undefined ? { name } : { name, limitUsd },
        maxPricesOf: () => DOLLAR_PER_OUTPUT_TOKEN,
        fallback: {},
        onWarning: (message) => warnings.push(message),
      });
      try {
        for (let call = 0; call < 2; call++) {
          await expect(budget.beforeAttempt(attemptInfo({ maxTokens: 1 }))).rejects.toMatchObject({
            reason: 'store_misconfigured',
            message: expect.stringContaining(
              `its store is misconfigured (Redis at 127.0.0.1:${a.port} is a node of a Redis Cluster (cluster_enabled:1): one node serves only some of the hash slots, so a budget would work for some scope names and fail for others; pass an ioredis Cluster client as the store's client instead of a url); calls are refused until the configuration is fixed, and no fallback is used for it`,
            ),
          });
        }
        expect(warnings.filter((warning) => /fallback/.test(warning))).toEqual([]);
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

describe('a url that comes to name a Redis Cluster node while the fallback covers an outage', () => {
  let standalone: TestRedis;
  let node: TestRedis;
  let cluster: TestRedis;
  beforeAll(async () => {
    standalone = await startRedis();
    // The other node serves scope `{a}`'s slot: what this one is asked for it answers MOVED.
    node = await startRedis({
      args: [
        '--cluster-enabled',
        'yes',
        '--cluster-config-file',
        join(mkdtempSync(join(tmpdir(), 'budget-cluster-')), 'nodes.conf'),
      ],
    });
    cluster = await startRedis({
      args: [
        '--cluster-enabled',
        'yes',
        '--cluster-config-file',
        join(mkdtempSync(join(tmpdir(), 'budget-cluster-')), 'nodes.conf'),
      ],
    });
    const admins = [node, cluster].map((server) => new Redis(server.url));
    try {
      await admins[0]?.call('CLUSTER', 'ADDSLOTSRANGE', '0', '8191');
      await admins[1]?.call('CLUSTER', 'ADDSLOTSRANGE', '8192', '16383');
      await admins[0]?.call('CLUSTER', 'MEET', '127.0.0.1', String(cluster.port));
    } finally {
      for (const admin of admins) admin.disconnect();
    }
  }, 60_000);
  afterAll(async () => {
    for (const server of [standalone, node, cluster]) await server?.stop();
  });

  /** A settlement to the store that failed, told once the budget has seen it too. */
  function observed(store: BudgetStore, settleFailed: () => void): BudgetStore {
    return {
      acquire: (request) => store.acquire(request),
      renew: (leases, ttlMs) => store.renew(leases, ttlMs),
      counters: (scopes) => store.counters(scopes),
      async settle(leaseId, scopes, settlement) {
        try {
          return await store.settle(leaseId, scopes, settlement);
        } catch (error) {
          setImmediate(settleFailed);
          throw error;
        }
      },
    };
  }

  it.each([
    ['a call still in flight on the fallback', true],
    ['only the spend of the fallback still to write back', false],
  ])(
    'refuses the next call as store_misconfigured instead of serving it from memory (%s)',
    async (_, keepInFlight) => {
      const forwarder: TcpForwarder = await startTcpForwarder(standalone.port);
      const store = new RedisBudgetStore({ url: forwarder.url, prefix: `drain-${String(keepInFlight)}:` });
      let settleFailures = 0;
      let onSettleFailure: (() => void) | null = null;
      const warnings: string[] = [];
      const budget = createBudget({
        store: observed(store, () => {
          settleFailures += 1;
          onSettleFailure?.();
        }),
        scope: { name: 'a', limitUsd: 10 },
        maxPricesOf: () => DOLLAR_PER_OUTPUT_TOKEN,
        fallback: {},
        onWarning: (message) => warnings.push(message),
      });
      let inFlight: AttemptHandle | null = null;
      try {
        // The store answers: the fallback knows what is left.
        const first = await budget.beforeAttempt(attemptInfo({ maxTokens: 1 }));
        await first.end({ record: callRecord(1), error: null, mayHaveBeenBilled: true });
        // An outage: the fallback serves a call.
        forwarder.retarget(null);
        const second = await budget.beforeAttempt(attemptInfo({ maxTokens: 1 }));
        expect(warnings.filter((warning) => /using the fallback store/.test(warning))).toHaveLength(1);
        if (keepInFlight) inFlight = second;
        else await second.end({ record: callRecord(1), error: null, mayHaveBeenBilled: true });
        // The address now reaches a node of a Redis Cluster.
        const reached = forwarder.nextConnectionTo(node.port);
        const seen = settleFailures;
        const settleFailed = new Promise<void>((resolve) => {
          onSettleFailure = () => {
            if (settleFailures > seen) resolve();
          };
        });
        forwarder.retarget(node.port);
        await reached;
        // Without a call in flight, the write-back is what meets the node first (MOVED).
        if (!keepInFlight) await settleFailed;
        await expect(budget.beforeAttempt(attemptInfo({ maxTokens: 1 }))).rejects.toMatchObject({
          reason: 'store_misconfigured',
          message: expect.stringMatching(
            /its store is misconfigured \(Redis at 127\.0\.0\.1:\d+ is a node of a Redis Cluster/,
          ),
        });
        expect(warnings.filter((warning) => /using the fallback store/.test(warning))).toHaveLength(1);
      } finally {
        await inFlight?.end({ record: callRecord(1), error: null, mayHaveBeenBilled: true });
        await budget.close({ timeoutMs: 100 });
        await store.close();
        await forwarder.close();
      }
    },
  );
});
