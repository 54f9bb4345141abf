import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  chownSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
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
  /**
   * Stops the server (SIGINT, a fast shutdown: clients still connected, such as a failed test's workers, are
   * disconnected rather than waited for) and removes its directory.
   */
  stop(): Promise<void>;
  /** Kills the server and every backend (SIGKILL to its process group), as a crash does. */
  kill(): Promise<void>;
  /** Starts it again on the same directory and port (crash recovery replays the WAL). */
  restart(): Promise<void>;
  /**
   * Stalls the whole server for `ms` (SIGSTOP to the postmaster and every backend, then SIGCONT), as a paused
   * machine or a server starved of CPU does: connections stay open, nothing is answered.
   */
  stall(ms: number): Promise<void>;
  /** The last lines the server wrote to its log (stderr), for a failure's message. */
  logTail(lines?: number): string;
}

/** The user the server runs as when the tests run as root (initdb and postgres refuse root). */
const SERVER_USER = 'switchboard-pg';
/** How long `stop()` waits for a fast shutdown before it kills the server. */
const STOP_WAIT_MS = 20_000;

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
  let log = '';

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
      log = (log + String(chunk)).slice(-8000);
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

  /** The last `lines` lines the server wrote to its log. */
  const logTail = (lines = 12) => log.trimEnd().split('\n').slice(-lines).join('\n');

  async function killAll(): Promise<void> {
    if (child === null) return;
    // Each backend calls setsid(), so it is not in the postmaster's group: the postmaster is stopped
    // (it forks no more), its children are listed, and all of them are killed at once.
    const backends = stopAndListChildren(child);
    killGroup(child);
    for (const pid of backends) signal(pid, 'SIGKILL');
    await exited;
    // A restart while a dying backend still holds the shared memory fails ("pre-existing shared memory
    // block is still in use"): wait until every one has exited.
    await waitForExited(backends);
  }

  await start();
  return {
    url,
    port,
    password,
    async stop() {
      if (child !== null && child.exitCode === null && child.signalCode === null) {
        child.kill('SIGINT');
        // A fast shutdown that has not ended in 20 s is stuck (seen once, after the server restarted from a
        // crashed backend): the server is killed instead, so no suite waits for it past its hook's timeout
        // or leaves it running.
        let timer: NodeJS.Timeout | undefined;
        const late = await Promise.race([
          exited.then(() => false),
          new Promise<boolean>((resolve) => {
            timer = setTimeout(() => resolve(true), STOP_WAIT_MS);
          }),
        ]);
        clearTimeout(timer);
        if (late) {
          process.stderr.write(
            `postgres on port ${port} had not shut down ${STOP_WAIT_MS} ms after SIGINT: killed. Its log's last lines:\n${logTail(20)}\n`,
          );
          await killAll();
        }
      }
      await exited;
      rmSync(root, { recursive: true, force: true });
    },
    kill: killAll,
    restart: start,
    async stall(ms) {
      if (child === null) return;
      const server = child;
      const backends = stopAndListChildren(server);
      for (const pid of backends) signal(pid, 'SIGSTOP');
      try {
        await new Promise((resolve) => setTimeout(resolve, ms));
      } finally {
        for (const pid of backends) signal(pid, 'SIGCONT');
        if (server.pid !== undefined) signal(server.pid, 'SIGCONT');
      }
    },
    logTail,
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

function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name);
  } catch {
    // Already gone.
  }
}

/** The state and parent of a process from /proc/<pid>/stat, or null when it is gone. */
function procStat(pid: number): { state: string; ppid: number } | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { state: fields[0] ?? '', ppid: Number(fields[1]) };
  } catch {
    return null;
  }
}

/** Stops the postmaster (SIGSTOP) and lists its children from /proc. */
function stopAndListChildren(child: ChildProcess): number[] {
  const pid = child.pid;
  if (pid === undefined || child.exitCode !== null || child.signalCode !== null) return [];
  signal(pid, 'SIGSTOP');
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .map(Number)
    .filter((other) => procStat(other)?.ppid === pid);
}

/** Resolves once every process has exited (gone, or a zombie, which holds no memory); rejects after 60 s. */
async function waitForExited(pids: readonly number[]): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const alive = pids.filter((pid) => {
      const stat = procStat(pid);
      return stat !== null && stat.state !== 'Z' && stat.state !== 'X';
    });
    if (alive.length === 0) return;
    if (Date.now() > deadline)
      throw new Error(`postgres backends ${alive.join(', ')} did not exit after SIGKILL`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
