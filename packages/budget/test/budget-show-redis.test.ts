// listBudgetScopes (`switchboard budget show`) on a real redis-server and a 3-node Redis Cluster:
// every scope a budget spent in, with its window and past windows, read without changing a byte;
// a wrong password, an unreachable server and a wrong scheme in words, no password; 100,000 scopes
// show.listed in bounded memory.
import { Cluster, Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Budget } from '../src/budget.js';
import { RedisBudgetStore } from '../src/redis-store.js';
import { PAST_WINDOW_KEEP_MS } from '../src/scope-windows.js';
import { type BudgetScopeListing, listBudgetScopes } from '../src/show/scope-listing.js';
import { StoreError } from '../src/store-error.js';
import { type WindowRule, windowBounds } from '../src/window-bounds.js';
import * as show from './support/show-scenario.js';
import { freePort, startRedis, type TestRedis } from './support/start-redis.js';
import { startRedisCluster, type TestRedisCluster } from './support/start-redis-cluster.js';

const DAY_MS = 86_400_000;

/** Every key under `prefix` with its serialized value and absolute expiry: what must not change. */
async function snapshot(client: Redis, prefix: string): Promise<Map<string, string>> {
  const keys: string[] = [];
  let cursor = '0';
  do {
    const [next, page] = await client.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
    cursor = next;
    keys.push(...page);
  } while (cursor !== '0');
  const shot = new Map<string, string>();
  for (const key of keys) {
    const dumped = await client.dumpBuffer(key);
    shot.set(key, `${dumped?.toString('hex')} ${await client.call('PEXPIRETIME', key)}`);
  }
  return shot;
}

/**
 * Windows of `daily` the budget would have left on earlier days (the server's clock cannot be moved:
 * redis-server does not run under libfaketime): yesterday's ($2) and, after a day without calls, the
 * one of three days ago ($0.50), each hash with its ledger marker and the expiry the scripts give it.
 */
async function pastWindows(
  client: Redis | Cluster,
  prefix: string,
  scope = 'daily',
): Promise<{ today: number }> {
  const [seconds] = await client.time();
  const today = windowBounds({ period: 'day', timeZone: 'UTC' }, Number(seconds) * 1000).startMs;
  for (const [daysAgo, spent] of [
    [1, 2_000_000_000],
    [3, 500_000_000],
  ] as const) {
    const start = today - daysAgo * DAY_MS;
    const key = `${prefix}{${scope}}{${new Date(start).toISOString()}}:state`;
    await client.hset(key, 'ledger', 'earlier', 'spent', spent, 'reserved', 0);
    await client.pexpireat(key, start + DAY_MS + PAST_WINDOW_KEEP_MS);
  }
  return { today };
}

function expectShown(found: BudgetScopeListing[], today: number): void {
  expect(found.map((listing) => listing.scope)).toEqual(['daily', 'svc', 'svc/judge']);
  const [daily, svc, judge] = found;
  expect(svc).toEqual(show.SHOWN.svc);
  expect(judge).toEqual(show.SHOWN.judge);
  expect(daily).toEqual({
    ...show.SHOWN.daily,
    window: { start: new Date(today).toISOString(), end: new Date(today + DAY_MS).toISOString() },
    past: [
      {
        start: new Date(today - 3 * DAY_MS).toISOString(),
        end: new Date(today - 2 * DAY_MS).toISOString(),
        spentUsd: 0.5,
      },
      { start: new Date(today - DAY_MS).toISOString(), end: new Date(today).toISOString(), spentUsd: 2 },
    ],
  });
}

describe('budget show on redis-server', () => {
  let redis: TestRedis;
  let admin: Redis;
  let store: RedisBudgetStore;
  let budgets: Budget[] = [];
  let today = 0;

  beforeAll(async () => {
    redis = await startRedis();
    admin = new Redis(redis.url);
    store = new RedisBudgetStore({ url: redis.url, prefix: 'show:' });
    budgets = (await show.spendForShow(store)).budgets;
    ({ today } = await pastWindows(admin, 'show:'));
  });
  afterAll(async () => {
    for (const budget of budgets) await budget.close?.();
    await store?.close();
    admin?.disconnect();
    await redis?.stop();
  });

  it('lists every scope, its window and the past windows kept, changing no key', async () => {
    const before = await snapshot(admin, 'show:');
    expectShown(await show.listed({ url: redis.url, prefix: 'show:' }), today);
    expect(await snapshot(admin, 'show:')).toEqual(before);
  });

  it('a lease past its expiry shows as the store will count it: unsettled spend, nothing reserved', () =>
    show.expectExpiredLeaseCounted(store, () =>
      show.listed({ url: redis.url, prefix: 'show:', scope: 'expiring' }),
    ));

  it('--scope reads only that scope', () =>
    show.expectScopeFilter((scope) => show.listed({ url: redis.url, prefix: 'show:', scope })));

  it('a daily scope with no call yet today: no current window, $0, its past windows', async () => {
    await pastWindows(admin, 'quiet:', 'idle');
    expect(await show.listed({ url: redis.url, prefix: 'quiet:' })).toEqual([
      {
        scope: 'idle',
        spentUsd: 0,
        reservedUsd: 0,
        inFlight: 0,
        unsettledUsd: 0,
        window: null,
        past: [
          {
            start: new Date(today - 3 * DAY_MS).toISOString(),
            end: new Date(today - 2 * DAY_MS).toISOString(),
            spentUsd: 0.5,
          },
          { start: new Date(today - DAY_MS).toISOString(), end: new Date(today).toISOString(), spentUsd: 2 },
        ],
      },
    ]);
  });

  it('finds the windows of a zone across a DST change and days without calls, of a month and of an hour', async () => {
    const [seconds] = await admin.time();
    const now = Number(seconds) * 1000;
    const cases: [string, WindowRule, number[]][] = [
      // New York's days, 25 hours on 2026-11-01: windows before and after it, with days missing between.
      [
        'ny',
        { period: 'day', timeZone: 'America/New_York' },
        [Date.parse('2026-10-30T12:00:00Z'), Date.parse('2026-11-03T12:00:00Z'), now],
      ],
      ['berlin-month', { period: 'month', timeZone: 'Europe/Berlin' }, [now - 31 * DAY_MS, now]],
      ['hourly', { period: 'hour', timeZone: 'Asia/Kolkata' }, [now - 5 * 3_600_000, now - 3_600_000, now]],
    ];
    const expected: BudgetScopeListing[] = [];
    for (const [scope, rule, instants] of cases) {
      const windows = instants
        .map((at) => windowBounds(rule, at))
        .filter((bounds) => bounds.endMs + PAST_WINDOW_KEEP_MS > now);
      for (const [index, { startMs, endMs }] of windows.entries()) {
        const key = `zones:{${scope}}{${new Date(startMs).toISOString()}}:state`;
        await admin.hset(key, 'ledger', 'm', 'spent', (index + 1) * 1e9);
        await admin.pexpireat(key, endMs + PAST_WINDOW_KEEP_MS);
      }
      const iso = (bounds: { startMs: number; endMs: number }) => ({
        start: new Date(bounds.startMs).toISOString(),
        end: new Date(bounds.endMs).toISOString(),
      });
      const current = windows.at(-1);
      expected.push({
        scope,
        spentUsd: windows.length,
        reservedUsd: 0,
        inFlight: 0,
        unsettledUsd: 0,
        window: current === undefined ? null : iso(current),
        past: windows.slice(0, -1).map((bounds, index) => ({ ...iso(bounds), spentUsd: index + 1 })),
      });
    }
    expect(await show.listed({ url: redis.url, prefix: 'zones:' })).toEqual(
      expected.sort((a, b) => a.scope.localeCompare(b.scope)),
    );
  });

  it('an ACL user that may only read lists the same; one that may not SCAN is told what to allow', async () => {
    await admin.call(
      'ACL',
      'SETUSER',
      'reader',
      'on',
      '>reader-pass-1',
      '~show:*',
      '+time',
      '+scan',
      '+exists',
      '+hmget',
      '+zcount',
      '+zrangebyscore',
      '+pttl',
    );
    const url = `redis://reader:reader-pass-1@127.0.0.1:${redis.port}`;
    const found = await show.listed({ url, prefix: 'show:' });
    expectShown(
      found.filter((listing) => listing.scope !== 'expiring'),
      today,
    );
    await admin.call('ACL', 'SETUSER', 'reader', '-scan');
    await expect(show.listed({ url, prefix: 'show:' })).rejects.toThrow(
      /the ACL user may not run a command the listing reads with \(NOPERM\): allow \+time \+scan/,
    );
  });

  it('another prefix holds no scope', async () => {
    expect(await show.listed({ url: redis.url })).toEqual([]);
  });

  it('names an unreachable server, a wrong scheme and a misplaced option in words', async () => {
    const port = await freePort();
    await expect(show.listed({ url: `redis://:s3cret-pass@127.0.0.1:${port}` })).rejects.toThrow(
      new StoreError(
        `Redis at 127.0.0.1:${port}: connection refused (ECONNREFUSED): is redis-server running there?`,
      ),
    );
    expect(() => listBudgetScopes({ url: 'http://user:s3cret-pass@example.test' })).toThrow(
      'listBudgetScopes options.url must be a redis://, rediss://, postgres:// or postgresql:// address, got http:// at example.test',
    );
    expect(() => listBudgetScopes({ url: redis.url, schema: 'x' })).toThrow(/schema is for a postgres/);
    expect(() => listBudgetScopes({ url: redis.url, scope: 'a{b}' })).toThrow(/options.scope must be/);
  });

  it('lists 100,000 scopes in bounded memory', async () => {
    const many = 100_000;
    for (let from = 0; from < many; from += 10_000) {
      const batch = admin.pipeline();
      for (let i = from; i < from + 10_000; i++)
        batch.hset(`many:{tenant-${i}}:state`, 'ledger', 'm', 'spent', i);
      await batch.exec();
    }
    const {
      count,
      spentNanoUsd,
      peakBytes: peak,
    } = await show.listAll(listBudgetScopes({ url: redis.url, prefix: 'many:' }));
    expect(count).toBe(many);
    expect(spentNanoUsd).toBe((many * (many - 1)) / 2);
    // What is kept while listing: a page of SCAN and the names of the last 10,000 scopes show.listed (about
    // 1 MB), not 100,000 listings (about 30 MB).
    expect(peak).toBeLessThan(8_000_000);
  });
});

describe('budget show on a wrong password', () => {
  let redis: TestRedis;
  beforeAll(async () => {
    redis = await startRedis({ password: 'right-password-1' });
  });
  afterAll(() => redis?.stop());

  it('says authentication failed, never the password', async () => {
    const error = await show
      .listed({ url: `redis://:wrong-password-2@127.0.0.1:${redis.port}` })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StoreError);
    expect(String((error as Error).message)).toMatch(/authentication failed \(WRONGPASS\)/);
    expect(JSON.stringify(error) + String(error) + (error as Error).stack).not.toContain('wrong-password-2');
  });
});

describe('budget show on a 3-node Redis Cluster, given one node', () => {
  let cluster: TestRedisCluster;
  let client: Cluster;
  let budgets: Budget[] = [];
  let today = 0;

  beforeAll(async () => {
    cluster = await startRedisCluster();
    client = new Cluster([...cluster.nodes]);
    const store = new RedisBudgetStore({ client, prefix: 'show:' });
    budgets = (await show.spendForShow(store)).budgets;
    ({ today } = await pastWindows(client, 'show:'));
    // Roots whose hash slots fall on every node.
    for (let i = 0; i < 30; i++)
      await client.hset(`show:{root-${i}}:state`, 'ledger', 'm', 'spent', 1_000_000_000);
  });
  afterAll(async () => {
    for (const budget of budgets) await budget.close?.();
    client?.disconnect();
    await cluster?.stop();
  });

  it("lists every master's scopes", async () => {
    const node = cluster.nodes[1];
    const found = await show.listed({ url: `redis://127.0.0.1:${node?.port}`, prefix: 'show:' });
    expect(found.filter((listing) => listing.scope.startsWith('root-'))).toHaveLength(30);
    expectShown(
      found.filter((listing) => !listing.scope.startsWith('root-')),
      today,
    );
    const holders = new Set(
      await Promise.all(
        Array.from({ length: 30 }, (_, i) => client.cluster('KEYSLOT', `show:{root-${i}}:state`)),
      ).then((slots) => slots.map((slot) => Math.floor(Number(slot) / 5462))),
    );
    expect(holders.size).toBe(3);
  });
});
