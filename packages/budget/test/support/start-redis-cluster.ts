import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';
import { freePort, startRedis, type TestRedis } from './start-redis.js';

const run = promisify(execFile);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A Redis Cluster of our own: three masters, no replicas, on free loopback ports. */
export interface TestRedisCluster {
  /** `[{ host: '127.0.0.1', port }, …]`, for `new Cluster(nodes)`. */
  readonly nodes: readonly { readonly host: string; readonly port: number }[];
  /** SIGKILLs every node (a crash of the whole cluster), runs `during`, starts them again on the same files. */
  crash(during: () => Promise<void>): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Starts three `redis-server --cluster-enabled yes` processes (each with its nodes file and,
 * for a durable ledger, an append-only file fsynced on every write, in a temporary
 * directory), joins them with `redis-cli --cluster create … --cluster-replicas 0`, and
 * resolves once every node reports `cluster_state:ok` and knows the other two.
 */
export async function startRedisCluster(): Promise<TestRedisCluster> {
  const root = mkdtempSync(join(tmpdir(), 'budget-kit-cluster-'));
  const dirs = ['a', 'b', 'c'].map((name) => {
    const dir = join(root, name);
    mkdirSync(dir);
    return dir;
  });
  // A node's cluster bus listens on its port + 10000: both below the ephemeral range (see freePort).
  const start = async (dir: string, port?: number) =>
    startRedis({
      port: port ?? (await freePort({ from: 20_000, to: 22_767, alsoFree: 10_000 })),
      persistence: { dir },
      args: [
        '--cluster-enabled',
        'yes',
        '--cluster-config-file',
        join(dir, 'nodes.conf'),
        '--cluster-node-timeout',
        '2000',
      ],
    });
  let servers: TestRedis[] = [];
  for (const dir of dirs) servers.push(await start(dir));
  const ports = servers.map((server) => server.port);
  try {
    await run(
      'redis-cli',
      [
        '--cluster',
        'create',
        ...ports.map((port) => `127.0.0.1:${port}`),
        '--cluster-replicas',
        '0',
        '--cluster-yes',
      ],
      { timeout: 30_000 },
    );
  } catch (error) {
    for (const server of servers) await server.stop();
    throw new Error(`redis-cli --cluster create failed: ${String(error)}`);
  }
  await waitForOk(ports);
  return {
    nodes: ports.map((port) => ({ host: '127.0.0.1', port })),
    async crash(during) {
      await Promise.all(servers.map((server) => server.kill()));
      await during();
      const started: TestRedis[] = [];
      for (const [index, dir] of dirs.entries()) started.push(await start(dir, ports[index]));
      servers = started;
      await waitForOk(ports);
    },
    async stop() {
      for (const server of servers) await server.stop();
      rmSync(root, { recursive: true, force: true });
    },
  };
}

async function waitForOk(ports: readonly number[]): Promise<void> {
  const admins = ports.map((port) => new Redis({ host: '127.0.0.1', port, lazyConnect: true }));
  for (const admin of admins) admin.on('error', () => {});
  try {
    const deadline = Date.now() + 30_000;
    for (;;) {
      const states = await Promise.all(
        admins.map((admin) => admin.call('CLUSTER', 'INFO').then(String, (error) => String(error))),
      );
      if (states.every((state) => /cluster_state:ok/.test(state) && /cluster_known_nodes:3\b/.test(state)))
        return;
      if (Date.now() > deadline)
        throw new Error(`the cluster did not reach cluster_state:ok: ${states.join(' | ')}`);
      await sleep(100);
    }
  } finally {
    for (const admin of admins) admin.disconnect();
  }
}
