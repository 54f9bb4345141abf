import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { freePort } from './start-redis.js';

/** A PostgreSQL server of our own: its data directory in a temporary directory, on a free loopback port. */
export interface TestPostgres {
  /** `postgres://switchboard:<password>@127.0.0.1:<port>/switchboard`. */
  readonly url: string;
  readonly port: number;
  readonly password: string;
  /** Stops the server (SIGTERM, a smart shutdown) and removes its directory. */
  stop(): Promise<void>;
  /** Kills the server and every backend (SIGKILL to its process group), as a crash does. */
  kill(): Promise<void>;
  /** Starts it again on the same directory and port (crash recovery replays the WAL). */
  restart(): Promise<void>;
}

/** The user the server runs as when the tests run as root (initdb and postgres refuse root). */
const SERVER_USER = 'switchboard-pg';

/** The directory of PostgreSQL's programs: Debian's newest /usr/lib/postgresql/<n>/bin, else PATH. */
function binDir(): string {
  const root = '/usr/lib/postgresql';
  if (existsSync(root)) {
    const versions = readdirSync(root)
      .filter((name) => /^\d+$/.test(name))
      .sort((a, b) => Number(b) - Number(a));
    for (const version of versions) {
      const dir = join(root, version, 'bin');
      if (existsSync(join(dir, 'postgres'))) return dir;
    }
  }
  return '';
}

function program(name: string): string {
  const dir = binDir();
  return dir === '' ? name : join(dir, name);
}

/** As root: the server's user (made once when missing) and how to run a program as it. */
function serverUser(): { uid: number; gid: number } | null {
  if (process.getuid?.() !== 0) return null;
  const lookUp = () => {
    try {
      return {
        uid: Number(execFileSync('id', ['-u', SERVER_USER], { stdio: 'pipe' }).toString().trim()),
        gid: Number(execFileSync('id', ['-g', SERVER_USER], { stdio: 'pipe' }).toString().trim()),
      };
    } catch {
      return null;
    }
  };
  const found = lookUp();
  if (found !== null) return found;
  try {
    execFileSync('useradd', ['--system', '--no-create-home', '--shell', '/usr/sbin/nologin', SERVER_USER], {
      stdio: 'pipe',
    });
  } catch (error) {
    // Another test file may have made it at the same moment.
    if (lookUp() === null)
      throw new Error(`could not create the user ${SERVER_USER} for PostgreSQL: ${String(error)}`);
  }
  const made = lookUp();
  if (made === null) throw new Error(`the user ${SERVER_USER} is missing after useradd`);
  return made;
}

/** The command line, as the server's user when we are root: setpriv execs in place, so the PID is the program's. */
function asServer(
  user: { uid: number; gid: number } | null,
  file: string,
  args: readonly string[],
): [string, string[]] {
  if (user === null) return [file, [...args]];
  return ['setpriv', [`--reuid=${user.uid}`, `--regid=${user.gid}`, '--clear-groups', '--', file, ...args]];
}

/** Options of {@link startPostgres}. */
export interface StartPostgresOptions {
  /** Server settings beyond the defaults, given as `-c name=value` (kept by `restart()`), e.g. `{ synchronous_commit: 'off' }`. */
  readonly settings?: Readonly<Record<string, string>>;
  /** Extra environment of the server process (e.g. a clock shim's `LD_PRELOAD`), kept by `restart()`. */
  readonly env?: Readonly<Record<string, string>>;
}

/**
 * Runs `initdb` into a fresh temporary directory (password authentication, a random
 * password) and starts `postgres` on a free loopback port; resolves once it accepts a
 * connection. Rejects (failing the suite, never skipping it) when it cannot start.
 */
export async function startPostgres(options: StartPostgresOptions = {}): Promise<TestPostgres> {
  const settings = Object.entries(options.settings ?? {}).flatMap(([name, value]) => [
    '-c',
    `${name}=${value}`,
  ]);
  const user = serverUser();
  const root = mkdtempSync(join(tmpdir(), 'switchboard-pg-'));
  const data = join(root, 'data');
  const password = randomBytes(12).toString('hex');
  const passwordFile = join(root, 'password');
  writeFileSync(passwordFile, `${password}\n`, { mode: 0o600 });
  if (user !== null) {
    chownSync(root, user.uid, user.gid);
    chownSync(passwordFile, user.uid, user.gid);
  }
  const [initdb, initArgs] = asServer(user, program('initdb'), [
    '-D',
    data,
    '-U',
    'switchboard',
    '--auth=scram-sha-256',
    `--pwfile=${passwordFile}`,
    '--no-sync',
    '--no-instructions',
    '-E',
    'UTF8',
    '--locale=C',
  ]);
  try {
    execFileSync(initdb, initArgs, { stdio: 'pipe' });
  } catch (error) {
    const stderr = (error as { stderr?: Buffer }).stderr?.toString() ?? '';
    throw new Error(`initdb failed: ${String(error)} ${stderr}`);
  }
  rmSync(passwordFile);
  const port = await freePort();
  const url = `postgres://switchboard:${password}@127.0.0.1:${port}/postgres`;
  let child: ChildProcess | null = null;
  let exited: Promise<void> = Promise.resolve();

  async function start(): Promise<void> {
    // The extra environment is set by `env` after setpriv, so only the server itself gets it (a clock shim
    // preloaded into setpriv, run as root, would share its state with the server as another user).
    const extraEnv = Object.entries(options.env ?? {}).map(([name, value]) => `${name}=${value}`);
    const [file, args] = asServer(user, extraEnv.length > 0 ? 'env' : program('postgres'), [
      ...(extraEnv.length > 0 ? [...extraEnv, program('postgres')] : []),
      '-D',
      data,
      '-p',
      String(port),
      '-k',
      root,
      '-c',
      'listen_addresses=127.0.0.1',
      '-c',
      'max_connections=200',
      '-c',
      'shared_buffers=16MB',
      ...settings,
    ]);
    // Its own process group, so a kill reaches the postmaster and every backend at once.
    const server = spawn(file, args, { stdio: ['ignore', 'ignore', 'pipe'], detached: true });
    child = server;
    let stderr = '';
    server.stderr?.on('data', (chunk) => {
      stderr = (stderr + String(chunk)).slice(-4000);
    });
    exited = new Promise<void>((resolve) => server.once('exit', () => resolve()));
    const failed = new Promise<never>((_, reject) => {
      server.once('error', (error) => reject(new Error(`postgres could not start: ${error.message}`)));
      server.once('exit', (code) => reject(new Error(`postgres exited with ${code}: ${stderr}`)));
    });
    failed.catch(() => {});
    const deadline = Date.now() + 30_000;
    for (;;) {
      const probe = new pg.Client({ connectionString: url, connectionTimeoutMillis: 1000 });
      probe.on('error', () => {});
      try {
        await Promise.race([probe.connect().then(() => probe.query('SELECT 1')), failed]);
        return;
      } catch (error) {
        if (Date.now() > deadline || server.exitCode !== null) {
          killGroup(server);
          throw new Error(`postgres on port ${port} accepted no connection: ${String(error)} ${stderr}`);
        }
        await new Promise((resolve) => setTimeout(resolve, 100));
      } finally {
        await probe.end().catch(() => {});
      }
    }
  }

  await start();
  return {
    url,
    port,
    password,
    async stop() {
      if (child !== null && child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
      rmSync(root, { recursive: true, force: true });
    },
    async kill() {
      if (child !== null) killGroup(child);
      await exited;
      // The backends are in the group too; give the kernel a moment to reap them before a restart.
      await waitForGroupGone(child?.pid);
    },
    restart: start,
  };
}

function killGroup(child: ChildProcess): void {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(-child.pid, 'SIGKILL');
  } catch {
    child.kill('SIGKILL');
  }
}

async function waitForGroupGone(pid: number | undefined): Promise<void> {
  if (pid === undefined) return;
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    try {
      process.kill(-pid, 0);
    } catch {
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
