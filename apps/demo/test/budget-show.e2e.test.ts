// Issue 41: `switchboard budget show --store …` as a process, against a real redis-server (with a
// password) and a real PostgreSQL, each holding a budget that spent in a root, a role and a daily
// scope, with a call unsettled and one in flight: the table, --json, --scope, read-only (Redis keys
// byte for byte), and failures in words with the exit code of their kind, the password never printed.

import { createRequire } from 'node:module';
import { PostgresBudgetStore, RedisBudgetStore } from '@switchboard/budget';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SHOWN, spendForShow } from '../../../packages/budget/test/support/show-scenario.js';
import { startPostgres, type TestPostgres } from '../../../packages/budget/test/support/start-postgres.js';
import { freePort, startRedis, type TestRedis } from '../../../packages/budget/test/support/start-redis.js';
import {
  startRedisCluster,
  type TestRedisCluster,
} from '../../../packages/budget/test/support/start-redis-cluster.js';
import { runCli } from './run-cli.js';

const REDIS_PASSWORD = 'redis-secret-417';

/** The part of an ioredis client the test uses (ioredis is the budget package's, not the CLI's). */
interface Redis {
  keys(pattern: string): Promise<string[]>;
  dumpBuffer(key: string): Promise<Buffer | null>;
  call(command: string, ...args: string[]): Promise<unknown>;
  disconnect(): void;
}
const { Redis, Cluster } = createRequire(new URL('../../../packages/budget/package.json', import.meta.url))(
  'ioredis',
) as {
  Redis: new (url: string) => Redis;
  Cluster: new (
    nodes: { host: string; port: number }[],
  ) => ConstructorParameters<typeof RedisBudgetStore>[0]['client'] & {
    disconnect(): void;
  };
};

/** Every key with its serialized value and expiry. */
async function keysOf(client: Redis): Promise<string[]> {
  const keys = (await client.keys('*')).sort();
  return Promise.all(
    keys.map(
      async (key) =>
        `${key} ${(await client.dumpBuffer(key))?.toString('hex')} ${await client.call('PEXPIRETIME', key)}`,
    ),
  );
}

describe('switchboard budget show on Redis', () => {
  let redis: TestRedis;
  let url: string;
  let admin: Redis;
  let store: RedisBudgetStore;

  beforeAll(async () => {
    redis = await startRedis({ password: REDIS_PASSWORD });
    url = `redis://:${REDIS_PASSWORD}@127.0.0.1:${redis.port}`;
    admin = new Redis(url);
    store = new RedisBudgetStore({ url });
    await spendForShow(store);
  });
  afterAll(async () => {
    await store?.close();
    admin?.disconnect();
    await redis?.stop();
  });

  it('prints every scope as a table, changing no key, the password never printed', async () => {
    const before = await keysOf(admin);
    const run = await runCli(['budget', 'show', '--store', url]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(
      /│ svc\/judge +│ +\$3\.000000000 │ +\$0\.000000000 │ +0 │ +\$0\.000000000 │ never resets/,
    );
    expect(run.stdout).toMatch(
      /│ svc +│ +\$7\.000000000 │ +\$2\.000000000 │ +1 │ +\$4\.000000000 │ never resets/,
    );
    expect(run.stdout).toMatch(
      /│ daily +│ +\$1\.500000000 │ .* │ \d{4}-\d\d-\d\d 00:00 → \d{4}-\d\d-\d\d 00:00 │/,
    );
    expect(run.stdout + run.stderr).not.toContain(REDIS_PASSWORD);
    expect(await keysOf(admin)).toEqual(before);
  });

  it('--json: { scopes: [...] }; --scope: that scope only', async () => {
    const run = await runCli(['budget', 'show', '--store', url, '--json']);
    expect(run.code, run.stderr).toBe(0);
    const { scopes } = JSON.parse(run.stdout) as { scopes: { scope: string }[] };
    const byName = Object.fromEntries(scopes.map((listing) => [listing.scope, listing]));
    expect(Object.keys(byName).sort()).toEqual(['daily', 'svc', 'svc/judge']);
    expect(byName.svc).toEqual(SHOWN.svc);
    expect(byName['svc/judge']).toEqual(SHOWN.judge);
    expect(byName.daily).toMatchObject({ ...SHOWN.daily, past: [] });
    const one = await runCli(['budget', 'show', '--store', url, '--json', '--scope', 'svc/judge']);
    expect(JSON.parse(one.stdout)).toEqual({ scopes: [SHOWN.judge] });
    const none = await runCli(['budget', 'show', '--store', url, '--scope', 'nowhere']);
    expect(none.stdout).toBe('no scope nowhere in this store\n');
  });

  it('a wrong password: exit 1, in words, with --json too, never the password', async () => {
    const wrong = `redis://:not-${REDIS_PASSWORD}@127.0.0.1:${redis.port}`;
    for (const json of [false, true]) {
      const run = await runCli(['budget', 'show', '--store', wrong, ...(json ? ['--json'] : [])]);
      expect(run.code).toBe(1);
      expect(run.stderr).toBe(
        `switchboard: Redis at 127.0.0.1:${redis.port}: authentication failed (WRONGPASS): check the user and password of the url or client\n`,
      );
      if (json) expect(JSON.parse(run.stdout).error.exitCode).toBe(1);
      expect(run.stdout + run.stderr).not.toContain(REDIS_PASSWORD);
    }
  });

  it('an unreachable store: exit 1; a wrong scheme or no --store: exit 2', async () => {
    const port = await freePort();
    const away = await runCli(['budget', 'show', '--store', `redis://:pw-123456@127.0.0.1:${port}`]);
    expect(away.code).toBe(1);
    expect(away.stderr).toBe(
      `switchboard: Redis at 127.0.0.1:${port}: connection refused (ECONNREFUSED): is redis-server running there?\n`,
    );
    const scheme = await runCli(['budget', 'show', '--store', 'mysql://root:pw-123456@db.test/x']);
    expect(scheme.code).toBe(2);
    expect(scheme.stderr).toBe(
      'switchboard: --store must be a redis://, rediss://, postgres:// or postgresql:// address, got mysql:// at db.test\n',
    );
    const missing = await runCli(['budget', 'show']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/--store is required/);
  });
});

describe('switchboard budget show on PostgreSQL', () => {
  let postgres: TestPostgres;
  let store: PostgresBudgetStore;

  beforeAll(async () => {
    postgres = await startPostgres();
    store = new PostgresBudgetStore({ url: postgres.url, schema: 'service' });
    await spendForShow(store);
  }, 120_000);
  afterAll(async () => {
    await store?.close();
    await postgres?.stop();
  });

  it('--schema: every scope as JSON, the password never printed', async () => {
    const run = await runCli(['budget', 'show', '--store', postgres.url, '--schema', 'service', '--json']);
    expect(run.code, run.stderr).toBe(0);
    const { scopes } = JSON.parse(run.stdout) as { scopes: { scope: string }[] };
    expect(scopes.map((listing) => listing.scope)).toEqual(['daily', 'svc', 'svc/judge']);
    expect(scopes[1]).toEqual(SHOWN.svc);
    expect(run.stdout + run.stderr).not.toContain(postgres.password);
  });

  it('a schema that is not a budget schema: exit 2, naming what was expected', async () => {
    const run = await runCli(['budget', 'show', '--store', postgres.url, '--schema', 'public', '--json']);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(
      /^switchboard: PostgreSQL at 127\.0\.0\.1:\d+\/postgres: schema "public" is not a budget schema: it has no table budget_scopes, budget_leases \(expected the tables PostgresBudgetStore\.migrate\(\) makes/,
    );
    expect(JSON.parse(run.stdout).error.exitCode).toBe(2);
    expect(run.stdout + run.stderr).not.toContain(postgres.password);
  });

  it('a wrong password: exit 1, never the password', async () => {
    const wrong = postgres.url.replace(postgres.password, 'wrong-pg-password-5');
    const run = await runCli(['budget', 'show', '--store', wrong, '--schema', 'service']);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/authentication failed \(28P01\)/);
    expect(run.stdout + run.stderr).not.toContain('wrong-pg-password-5');
  });
});

describe('switchboard budget show given one node of a Redis Cluster', () => {
  let cluster: TestRedisCluster;
  let client: InstanceType<typeof Cluster>;

  beforeAll(async () => {
    cluster = await startRedisCluster();
    client = new Cluster([...cluster.nodes]);
    await spendForShow(new RedisBudgetStore({ client }));
  }, 120_000);
  afterAll(async () => {
    client?.disconnect();
    await cluster?.stop();
  });

  it("lists every master's scopes", async () => {
    for (const node of cluster.nodes) {
      const run = await runCli(['budget', 'show', '--store', `redis://127.0.0.1:${node.port}`, '--json']);
      expect(run.code, run.stderr).toBe(0);
      const { scopes } = JSON.parse(run.stdout) as { scopes: { scope: string }[] };
      expect(scopes.map((listing) => listing.scope).sort()).toEqual(['daily', 'svc', 'svc/judge']);
    }
  });
});
