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
}

/** A free loopback port: bind one, note it, release it (redis-server has no `--port 0`). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/**
 * Starts `redis-server` and waits until it answers PING. Rejects (failing the
 * suite, never skipping it) when it cannot start.
 */
export async function startRedis(options: StartRedisOptions = {}): Promise<TestRedis> {
  const port = options.port ?? (await freePort());
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
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  child.stderr?.on('data', (chunk) => {
    stderr += String(chunk);
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const failed = new Promise<never>((_, reject) => {
    child.once('error', (error) => reject(new Error(`redis-server could not start: ${error.message}`)));
    child.once('exit', (code) => reject(new Error(`redis-server exited with ${code}: ${stderr}`)));
  });
  failed.catch(() => {});
  const url = `redis://127.0.0.1:${port}`;
  const deadline = Date.now() + 15_000;
  for (;;) {
    const probe = new Redis(url, {
      lazyConnect: true,
      maxRetriesPerRequest: 0,
      retryStrategy: () => null,
      ...(options.password ? { password: options.password } : {}),
    });
    probe.on('error', () => {});
    try {
      await Promise.race([probe.connect().then(() => probe.ping()), failed]);
      break;
    } catch (error) {
      if (Date.now() > deadline || child.exitCode !== null) {
        child.kill('SIGKILL');
        throw new Error(`redis-server on port ${port} did not answer PING: ${String(error)} ${stderr}`);
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
  };
}
