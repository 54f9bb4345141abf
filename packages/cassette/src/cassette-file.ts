import { createHash, randomBytes } from 'node:crypto';
import {
  closeSync,
  constants as fsConstants,
  fstatSync,
  lstatSync,
  openSync,
  readFileSync,
  readSync,
  renameSync,
  rmSync,
  type Stats,
  statSync,
  writeSync,
} from 'node:fs';
import { hostname } from 'node:os';
import { dirname, resolve } from 'node:path';
import { threadId } from 'node:worker_threads';
import { CassetteFormatError } from './cassette-format-error.js';
import { lostLine } from './lost-calls.js';

/** The variable naming the record run a process belongs to (every process of one run the same value). */
export const CASSETTE_RUN_ENV = 'SWITCHBOARD_CASSETTE_RUN';

// O_NOFOLLOW: a cassette is never opened through a symbolic link (0 where the platform has none).
const NOFOLLOW = fsConstants.O_NOFOLLOW ?? 0;

/** A cassette file this process records to: shared by every recorder of the same path and run in the process. */
interface SharedFile {
  readonly path: string;
  readonly run: string | null;
  readonly fd: number;
  readonly dev: number;
  readonly ino: number;
  /** The last `seq` written by this process. */
  seq: number;
}

const FILES = Symbol.for('switchboard.cassette.files');
const TAKEN = Symbol.for('switchboard.cassette.taken');
const EXIT_HOOK = Symbol.for('switchboard.cassette.exit-hook');
const PROCESS_ID = Symbol.for('switchboard.cassette.process');

/** How many runs a header remembers it replaced (most recent first): their recorders never take the file back. */
const MAX_REPLACED = 16;

/** Per-process state kept on `process` (not a module), so every copy of this module in the process shares it. */
function processState<T>(symbol: symbol, make: () => T): T {
  const holder = process as unknown as Record<symbol, T | undefined>;
  const existing = holder[symbol];
  if (existing !== undefined) return existing;
  const made = make();
  holder[symbol] = made;
  return made;
}

function sharedFiles(): Map<string, SharedFile> {
  return processState(FILES, () => new Map<string, SharedFile>());
}

/** The cassettes (by path and run) another run took over from this process's run: the run that took each. */
function takenFiles(): Map<string, string | null> {
  return processState(TAKEN, () => new Map<string, string | null>());
}

/**
 * This process's name in a cassette's lines: its pid (and worker thread), with a
 * random suffix so a reused pid is never taken for the same process.
 */
export function processId(): string {
  return processState(PROCESS_ID, () => {
    const thread = threadId > 0 ? `.${threadId}` : '';
    return `${process.pid}${thread}-${randomBytes(2).toString('hex')}`;
  });
}

/**
 * The record run this process belongs to: `SWITCHBOARD_CASSETTE_RUN` when set;
 * else the process group (every process a shell command starts, test workers
 * included) and when its leader started, hashed; else (no `/proc`) the parent process.
 */
export function defaultRunId(env: Readonly<Record<string, string | undefined>> = process.env): string {
  const named = env[CASSETTE_RUN_ENV]?.trim();
  if (named) return named;
  return createHash('sha256').update(processGroupIdentity()).digest('hex').slice(0, 12);
}

function processGroupIdentity(): string {
  try {
    const fields = (path: string) => {
      const text = readFileSync(path, 'utf8');
      return text.slice(text.lastIndexOf(')') + 2).split(' ');
    };
    const group = fields('/proc/self/stat')[2];
    const started = fields(`/proc/${group}/stat`)[19];
    let boot = '';
    try {
      boot = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
    } catch {
      // no boot id: the group and its start time will do
    }
    if (group !== undefined && started !== undefined)
      return `group ${group} ${started} ${boot} ${hostname()}`;
  } catch {
    // no /proc (macOS, Windows): the parent process stands for the run
  }
  return `parent ${process.ppid} ${hostname()}`;
}

/** Refuses a path that is a symbolic link (dangling or not): a cassette is never read or written through one. */
function refuseLink(path: string): void {
  let stats: Stats | undefined;
  try {
    stats = lstatSync(path, { throwIfNoEntry: false });
  } catch (error) {
    throw new CassetteFormatError(path, null, `cannot look at it (${(error as NodeJS.ErrnoException).code})`);
  }
  if (stats?.isSymbolicLink()) {
    throw new CassetteFormatError(
      path,
      null,
      'is a symbolic link: a cassette is never read or written through one (it could point anywhere)',
    );
  }
  if (stats !== undefined && !stats.isFile())
    throw new CassetteFormatError(path, null, 'is not a regular file');
}

/** Opens a cassette for reading, never through a symbolic link. */
export function openForReading(path: string): number {
  refuseLink(path);
  try {
    return openSync(path, fsConstants.O_RDONLY | NOFOLLOW);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ELOOP') refuseLink(path);
    throw new CassetteFormatError(
      path,
      null,
      code === 'ENOENT' ? 'no such cassette file' : `cannot read it (${code})`,
    );
  }
}

/**
 * The `run` of the header line of the cassette at `path`, and the runs it says it
 * replaced; undefined when there is no readable header.
 */
function headerRun(path: string): { run: string | null; replaced: readonly string[] } | undefined {
  let fd: number;
  try {
    fd = openSync(path, fsConstants.O_RDONLY | NOFOLLOW);
  } catch {
    return undefined;
  }
  try {
    const buffer = Buffer.alloc(64 * 1024);
    const read = readSync(fd, buffer, 0, buffer.length, 0);
    const text = buffer.subarray(0, read).toString('utf8');
    const end = text.indexOf('\n');
    if (end < 0) return undefined;
    const header = JSON.parse(text.slice(0, end)) as {
      cassette?: unknown;
      run?: unknown;
      replaced?: unknown;
    };
    if (typeof header !== 'object' || header === null || header.cassette === undefined) return undefined;
    const replaced = Array.isArray(header.replaced)
      ? header.replaced.filter((run): run is string => typeof run === 'string')
      : [];
    return { run: typeof header.run === 'string' ? header.run : null, replaced };
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

function endsTorn(fd: number): boolean {
  const size = fstatSync(fd).size;
  if (size === 0) return false;
  const last = Buffer.alloc(1);
  readSync(fd, last, 0, 1, size - 1);
  return last[0] !== 0x0a;
}

function sleep(milliseconds: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, milliseconds);
}

/** How long a lock may be held before it is taken as left behind by a process that died holding it. */
const STALE_LOCK_MS = 30_000;

/**
 * Runs `work` holding `<path>.lock` (created exclusively; a lock whose process is
 * gone, or older than {@link STALE_LOCK_MS}, is taken as stale and removed).
 */
function withLock<T>(path: string, work: () => T): T {
  const lock = `${path}.lock`;
  const deadline = Date.now() + 2 * STALE_LOCK_MS;
  for (let wait = 2; ; wait = Math.min(wait * 2, 50)) {
    let fd: number | null = null;
    try {
      fd = openSync(lock, fsConstants.O_WRONLY | fsConstants.O_CREAT | fsConstants.O_EXCL | NOFOLLOW, 0o644);
      writeSync(fd, `${process.pid} ${hostname()}\n`);
    } catch (error) {
      if (fd !== null) closeSync(fd);
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') {
        throw new CassetteFormatError(
          path,
          null,
          `cannot lock it to record (${(error as NodeJS.ErrnoException).code})`,
        );
      }
      if (staleLock(lock)) rmSync(lock, { force: true });
      else if (Date.now() > deadline) {
        throw new CassetteFormatError(path, null, `cannot record: ${lock} stays locked by another recorder`);
      } else sleep(wait);
      continue;
    }
    try {
      return work();
    } finally {
      closeSync(fd);
      rmSync(lock, { force: true });
    }
  }
}

function staleLock(lock: string): boolean {
  try {
    const stats = lstatSync(lock);
    if (Date.now() - stats.mtimeMs > STALE_LOCK_MS) return true;
    const [pid, host] = readFileSync(lock, 'utf8').trim().split(' ');
    if (host !== hostname() || pid === undefined || !/^\d+$/.test(pid)) return false;
    try {
      process.kill(Number(pid), 0);
      return false;
    } catch (error) {
      return (error as NodeJS.ErrnoException).code === 'ESRCH';
    }
  } catch {
    return false;
  }
}

/**
 * The cassette file at `path` for recording run `run`: joined when its header
 * names the same run (another process or resolution of this run made it), else
 * replaced, once, by a new file holding `header` (under a lock, so the processes
 * of one run replace an older run's file exactly once between them). The new
 * header names the runs it replaced (`replaced`, most recent first): a process
 * of one of those runs, started later or not, never takes the file back.
 *
 * @throws {CassetteFormatError} when another run took the file over from this one.
 */
export function openRecording(
  path: string,
  run: string,
  header: (replaced: readonly string[]) => string,
): SharedFile {
  return openShared(path, run, () => {
    const found = headerRun(path);
    if (found !== undefined && found.run === run) return appendTo(path, run);
    if (found?.run != null && found.replaced.includes(run)) return { takenBy: found.run };
    const replaced =
      found?.run == null
        ? []
        : [found.run, ...found.replaced.filter((other) => other !== run)].slice(0, MAX_REPLACED);
    const temporary = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
    const fd = openSync(
      temporary,
      fsConstants.O_WRONLY | fsConstants.O_CREAT | fsConstants.O_EXCL | NOFOLLOW,
      0o644,
    );
    try {
      writeAll(fd, Buffer.from(`${header(replaced)}\n`, 'utf8'));
    } finally {
      closeSync(fd);
    }
    try {
      renameSync(temporary, path);
    } catch (error) {
      rmSync(temporary, { force: true });
      throw error;
    }
    return appendTo(path, run);
  });
}

/** The cassette at `path` for appending to its own run (pass-through calls in replay): never replaced. */
export function openAppending(path: string): SharedFile {
  const found = headerRun(path);
  if (found === undefined) throw new CassetteFormatError(path, 1, 'no cassette header to append after');
  return openShared(path, found.run, () => appendTo(path, found.run));
}

/** The failure of every call of run `run` after run `takenBy` took the cassette at `path` over. */
function takenOver(path: string, run: string | null, takenBy: string | null): CassetteFormatError {
  return new CassetteFormatError(
    path,
    null,
    `another record run (${JSON.stringify(takenBy)}) took this cassette over while this run (${JSON.stringify(run)}) was recording to it; this run records nothing more to it, and every later call of it fails (two runs on one file: give each its own file, or one SWITCHBOARD_CASSETTE_RUN); this call was not written`,
  );
}

function openShared(
  path: string,
  run: string | null,
  open: () => SharedFile | { takenBy: string | null },
): SharedFile {
  const absolute = resolve(path);
  const key = fileKey(path, run);
  const taken = takenFiles();
  if (taken.has(key)) throw takenOver(path, run, taken.get(key) ?? null);
  const files = sharedFiles();
  const existing = files.get(key);
  if (existing !== undefined) {
    if (sameFile(existing)) return existing;
    files.delete(key);
    closeSync(existing.fd);
    // Removed (a test cleaning up): recorded afresh. Replaced by another run: never taken back.
    const lost = lostTo(existing);
    if (lost !== null) throw lost;
  }
  if (!statSync(dirname(absolute), { throwIfNoEntry: false })?.isDirectory()) {
    throw new CassetteFormatError(path, null, 'cannot record here: its folder does not exist');
  }
  refuseLink(path);
  const opened = withLock(absolute, open);
  if ('takenBy' in opened) {
    taken.set(key, opened.takenBy);
    throw takenOver(path, run, opened.takenBy);
  }
  files.set(key, opened);
  processState(EXIT_HOOK, () => {
    process.on('exit', leaveLostLines);
    return true;
  });
  return opened;
}

/**
 * Says, in the file now at `file.path` (another run's), how many calls this
 * process recorded to the file that one replaced: a line `cassette check` fails
 * on. Only appended to a file that is there (never made), and only when this
 * process recorded any; best effort (a process's last word).
 */
function leaveLostLine(file: SharedFile, takenBy: string | null): void {
  if (file.seq === 0) return;
  let fd: number;
  try {
    fd = openSync(file.path, fsConstants.O_RDWR | fsConstants.O_APPEND | NOFOLLOW);
  } catch {
    return;
  }
  try {
    if (!fstatSync(fd).isFile()) return;
    const line = lostLine({ run: file.run, process: processId(), lost: file.seq, takenBy });
    writeAll(fd, Buffer.from(`${endsTorn(fd) ? '\n' : ''}${line}\n`, 'utf8'));
  } catch {
    // The process's last word could not be written: the check will not see it.
  } finally {
    closeSync(fd);
  }
}

/** The key of a file this process records to: its absolute path and the run. */
function fileKey(path: string, run: string | null): string {
  return `${resolve(path)}\u0000${run ?? ''}`;
}

/**
 * When another run replaced `file` (no longer at its path): this run's file is
 * marked taken, for good, and the calls this process wrote to it are said to
 * be lost, in the file that replaced it; the failure of the call that found out.
 * Null when the file was removed, or replaced by this run.
 */
function lostTo(file: SharedFile): CassetteFormatError | null {
  const found =
    lstatSync(file.path, { throwIfNoEntry: false }) === undefined ? undefined : headerRun(file.path);
  if (found === undefined || found.run === file.run) return null;
  takenFiles().set(fileKey(file.path, file.run), found.run);
  leaveLostLine(file, found.run);
  return takenOver(file.path, file.run, found.run);
}

/** At exit: for each file another run replaced since this process last wrote to it, the lost line (once). */
function leaveLostLines(): void {
  const taken = takenFiles();
  for (const [key, file] of sharedFiles()) {
    if (!taken.has(key) && !sameFile(file)) lostTo(file);
  }
}

function appendTo(path: string, run: string | null): SharedFile {
  const fd = openSync(path, fsConstants.O_RDWR | fsConstants.O_APPEND | NOFOLLOW);
  const stats = fstatSync(fd);
  return { path, run, fd, dev: stats.dev, ino: stats.ino, seq: 0 };
}

/** Whether `path` still names the file this process opened (not replaced by another run, removed, or made a link). */
function sameFile(file: SharedFile): boolean {
  const stats = lstatSync(file.path, { throwIfNoEntry: false });
  return stats?.isFile() === true && stats.ino === file.ino && stats.dev === file.dev;
}

function writeAll(fd: number, bytes: Buffer): void {
  for (let offset = 0; offset < bytes.length; ) offset += writeSync(fd, bytes, offset, bytes.length - offset);
}

/**
 * Appends one whole line (one `write`, `O_APPEND`: lines of concurrent writers
 * never mix) with the next `seq` of this process.
 *
 * @throws {CassetteFormatError} when the file was replaced or removed since it was opened: nothing is written.
 */
export function appendLine(file: SharedFile, line: (seq: number) => string): void {
  if (!sameFile(file)) {
    const lost = lostTo(file);
    if (lost !== null) throw lost;
    throw new CassetteFormatError(
      file.path,
      null,
      'the cassette was replaced or removed while this run was recording to it (another record run started on the same file?); this call was not written',
    );
  }
  const seq = file.seq + 1;
  // A writer that died in the middle of its line left it cut: this line starts on a line of its own.
  const text = `${endsTorn(file.fd) ? '\n' : ''}${line(seq)}\n`;
  // Written as a string (no copy of a long stream's line in the heap); a short write goes on from where it stopped.
  const written = writeSync(file.fd, text);
  const bytes = Buffer.byteLength(text, 'utf8');
  if (written < bytes) writeAll(file.fd, Buffer.from(text, 'utf8').subarray(written));
  file.seq = seq;
}
