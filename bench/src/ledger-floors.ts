// The stores' own floors for bench:ledger, measured on the same servers in the same run: PostgreSQL's
// `pgbench` updating one hot row conditionally (durable commits, the server's defaults), and Redis's
// `redis-benchmark` answering an EVALSHA of a trivial script. Both programs are Debian's (postgresql,
// redis-tools); the clients are theirs, so the floor is the server's, not Node's.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { connectPg, requireFromBudget } from './budget-dependencies.js';

const run = promisify(execFile);

/** What a floor measured: operations per second, and the mean latency of one as its program reports it. */
export interface Floor {
  readonly what: string;
  readonly perSecond: number;
  readonly latencyMs: number;
  /** How many operations it measured (pgbench's transactions), when known. */
  readonly count?: number;
}

const HOT_ROW_SCRIPT = 'UPDATE ledger_floor SET spent = spent + 1 WHERE id = 1 AND spent + 1 <= cap;\n';

/** `pgbench -c clients -T seconds` with a one-row conditional UPDATE: the hot row's transactions per second. */
export async function pgbenchHotRow(url: string, clients: number, seconds: number): Promise<Floor> {
  const client = await connectPg(url);
  try {
    await client.query(
      'CREATE TABLE IF NOT EXISTS ledger_floor (id int PRIMARY KEY, spent bigint NOT NULL, cap bigint NOT NULL)',
    );
    await client.query(
      'INSERT INTO ledger_floor VALUES (1, 0, 9000000000000000000) ON CONFLICT (id) DO UPDATE SET spent = 0',
    );
  } finally {
    await client.end();
  }
  const address = new URL(url);
  const folder = mkdtempSync(join(tmpdir(), 'switchboard-pgbench-'));
  const script = join(folder, 'hot-row.sql');
  writeFileSync(script, HOT_ROW_SCRIPT);
  try {
    const { stdout } = await run(
      'pgbench',
      [
        '--no-vacuum',
        `--client=${clients}`,
        `--jobs=${Math.min(clients, 4)}`,
        `--time=${seconds}`,
        `--file=${script}`,
        `--host=${address.hostname}`,
        `--port=${address.port}`,
        `--username=${decodeURIComponent(address.username)}`,
        address.pathname.slice(1),
      ],
      // The password through the environment: never on a command line another user could read.
      { env: { ...process.env, PGPASSWORD: decodeURIComponent(address.password) } },
    );
    const tps = /tps = ([\d.]+) \(without initial connection time\)/.exec(stdout);
    const latency = /latency average = ([\d.]+) ms/.exec(stdout);
    const processed = /number of transactions actually processed: (\d+)/.exec(stdout);
    if (tps === null || latency === null) throw new Error(`pgbench printed no tps:\n${stdout}`);
    return {
      what: `pgbench, one hot row, conditional UPDATE, ${clients} clients, ${seconds} s`,
      perSecond: Number(tps[1]),
      latencyMs: Number(latency[1]),
      ...(processed === null ? {} : { count: Number(processed[1]) }),
    };
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

/** `redis-benchmark -c clients` of `EVALSHA <sha of "return 1"> 0`: answers per second and their p50. */
export async function redisBenchmarkEvalsha(url: string, clients: number, requests: number): Promise<Floor> {
  const { Redis } = requireFromBudget('ioredis') as {
    Redis: new (
      url: string,
    ) => { script(command: 'LOAD', source: string): Promise<string>; quit(): Promise<unknown> };
  };
  const client = new Redis(url);
  const sha = await client.script('LOAD', 'return 1');
  await client.quit();
  const address = new URL(url);
  const { stdout } = await run('redis-benchmark', [
    '-h',
    address.hostname,
    '-p',
    address.port,
    '-c',
    String(clients),
    '-n',
    String(requests),
    '--csv',
    'EVALSHA',
    sha,
    '0',
  ]);
  // "test","rps","avg_latency_ms","min_latency_ms","p50_latency_ms",...
  const line = stdout.trim().split('\n').at(-1) ?? '';
  const fields = line.split(',').map((field) => Number(field.replaceAll('"', '')));
  const [, rps, , , p50] = fields;
  if (rps === undefined || p50 === undefined || Number.isNaN(rps)) {
    throw new Error(`redis-benchmark printed no rate:\n${stdout}`);
  }
  return { what: `redis-benchmark, EVALSHA, ${clients} clients`, perSecond: rps, latencyMs: p50 };
}
