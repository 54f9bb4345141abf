import { type ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { Redis } from 'ioredis';

/** A redis-server of our own on a free loopback port. */
export interface TestRedis {
  readonly url: string;
  readonly port: number;
  /** The persistence directory, when it has one. */
  readonly dir: string;
  /** Stops the server (SIGTERM) and waits for it to exit. */
  stop(): Promise<void>;
  /** Kills the server (SIGKILL), as a crash does, and waits for it to exit. */
  kill(): Promise<void>;
  /** Stops the server answering for `ms` (SIGSTOP, then SIGCONT): connections stay open, nothing is answered. */
  stall(ms: number): Promise<void>;
}

/** How to start it. */
export interface StartRedisOptions {
  /** Default: a free port. */
  readonly port?: number;
  /** An append-only file with fsync on every write, in `dir`. Default: no persistence. */
  readonly persistence?: { readonly dir: string };
  /** A password the server requires (`requirepass`). */
  readonly password?: string;
  /** Extra `--name value` arguments, e.g. `['--maxmemory-policy', 'allkeys-lru']`. */
  readonly args?: readonly string[];
  /** Environment variables added to the server's (e.g. a clock shim's, `movableClock().env`). */
  readonly env?: Readonly<Record<string, string>>;
}

/**
 * A free loopback port for a server of a test: bind one, note it, release it (redis-server has no
 * `--port 0`). Taken at random below Linux's ephemeral range (32768-60999), never from it: a server
 * a test kills and starts again on the same port must find it free, and a port of the ephemeral
 * range can meanwhile be taken as the local end of any outgoing connection on the machine (or be
 * handed to another test's `listen(0)`); from 20000-32767 neither happens, and two test processes
 * pick the same port once in thousands of tries, each try checked by a bind. `alsoFree`: an offset
 * whose port must be free too (a cluster node's bus port, its port + 10000).
 */
export async function freePort(
  options: { from?: number; to?: number; alsoFree?: number } = {},
): Promise<number> {
  const { from = 20_000, to = 32_767, alsoFree } = options;
  for (let tries = 0; ; tries++) {
    const port = from + Math.floor(Math.random() * (to - from + 1));
    if ((await bindable(port)) && (alsoFree === undefined || (await bindable(port + alsoFree)))) return port;
    if (tries >= 200) throw new Error(`no free loopback port found in ${from}-${to} after 200 tries`);
  }
}

/** Whether a loopback port can be bound now. */
function bindable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/**
 * Starts `redis-server` and waits until it answers PING. Rejects (failing the
 * suite, never skipping it) when it cannot start.
 */
export async function startRedis(options: StartRedisOptions = {}): Promise<TestRedis> {
  // A port picked here can be taken by another test's server between the check and our bind: that
  // start fails (another server answers on the port, not ours) and a new port is tried.
  for (let tries = 1; ; tries++) {
    try {
      return await startRedisOn(options.port ?? (await freePort()), options);
    } catch (error) {
      if (!(error instanceof PortTakenError) || options.port !== undefined || tries >= 5) throw error;
    }
  }
}

/** Another server, not the one just started, answers on the port. */
class PortTakenError extends Error {
  constructor(port: number, other: number | null, ours: number | undefined, detail = '') {
    super(
      `port ${port} is served by another ${other === null ? 'process' : `redis-server (pid ${other})`}, not the one started (pid ${ours})${detail}`,
    );
  }
}

/** A one-shot connection to `url` that never reconnects, its errors its commands'. */
function probeClient(url: string, password: string | undefined): Redis {
  const probe = new Redis(url, {
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
    ...(password ? { password } : {}),
  });
  probe.on('error', () => {});
  return probe;
}

/** The process id of the redis-server `probe` is connected to, or null when it does not say. */
async function pidOf(probe: Redis): Promise<number | null> {
  const pid = Number(/process_id:(\d+)/.exec(String(await probe.info('server')))?.[1]);
  return Number.isSafeInteger(pid) ? pid : null;
}

/** The process id of the redis-server answering at `url`, or null when none answers. */
async function serverPid(url: string, password: string | undefined): Promise<number | null> {
  const probe = probeClient(url, password);
  try {
    await probe.connect();
    return await pidOf(probe);
  } catch {
    return null;
  } finally {
    probe.disconnect();
  }
}

async function startRedisOn(port: number, options: StartRedisOptions): Promise<TestRedis> {
  const persistence = options.persistence
    ? ['--dir', options.persistence.dir, '--appendonly', 'yes', '--appendfsync', 'always', '--save', '']
    : ['--save', '', '--appendonly', 'no'];
  const child: ChildProcess = spawn(
    'redis-server',
    [
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      ...persistence,
      ...(options.password ? ['--requirepass', options.password] : []),
      ...(options.args ?? []),
    ],
    { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...options.env } },
  );
  // redis-server logs to its stdout, "Address already in use" included: both kept (the last 8 KiB).
  let output = '';
  const keep = (chunk: unknown) => {
    output = (output + String(chunk)).slice(-8192);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const closed = new Promise<void>((resolve) => child.once('close', () => resolve()));
  const failed = new Promise<never>((_, reject) => {
    child.once('error', (error) => reject(new Error(`redis-server could not start: ${error.message}`)));
    // 'close': after its output is read to the end (the reason it gave, such as a port in use).
    child.once('close', (code) => reject(new Error(`redis-server exited with ${code}: ${output}`)));
  });
  failed.catch(() => {});
  const url = `redis://127.0.0.1:${port}`;
  const deadline = Date.now() + 15_000;
  for (;;) {
    const probe = probeClient(url, options.password);
    try {
      await Promise.race([probe.connect().then(() => probe.ping()), failed]);
      // Ours, not a server another test started on the same port (ours then cannot bind and exits).
      const pid = await pidOf(probe);
      if (pid !== child.pid) {
        child.kill('SIGKILL');
        throw new PortTakenError(port, pid, child.pid);
      }
      break;
    } catch (error) {
      if (error instanceof PortTakenError) throw error;
      // Ours could not bind (on a loaded machine it can exit before the probe is answered by the other).
      if (child.exitCode !== null) await closed;
      if (child.exitCode !== null && /Address already in use/i.test(output)) {
        throw new PortTakenError(
          port,
          await serverPid(url, options.password),
          child.pid,
          `: ${output.trim()}`,
        );
      }
      if (Date.now() > deadline || child.exitCode !== null) {
        child.kill('SIGKILL');
        throw new Error(`redis-server on port ${port} did not answer PING: ${String(error)} ${output}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    } finally {
      probe.disconnect();
    }
  }
  return {
    url,
    port,
    dir: options.persistence?.dir ?? '',
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
    async kill() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
    async stall(ms) {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGSTOP');
      try {
        await new Promise((resolve) => setTimeout(resolve, ms));
      } finally {
        child.kill('SIGCONT');
      }
    },
  };
}
