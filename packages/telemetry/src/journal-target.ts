import { closeSync, constants as fsConstants, fstatSync, openSync, readSync, writeSync } from 'node:fs';

/** Where a journal's bytes go: an append-only file descriptor. */
export interface JournalTarget {
  /** The file descriptor; writes go to its end (`O_APPEND`), or to stdout. */
  readonly fd: number;
  /** The key two journals on the same file share (device and inode), or null for stdout. */
  readonly key: string;
  /** Whether the file ended in the middle of a line (a crashed writer's torn line) when opened. */
  readonly endsTorn: boolean;
  /** Writes part of `bytes` from `offset`, returning how many bytes went; throws the system's error. */
  write(bytes: Buffer, offset: number): number;
  /** Closes the descriptor (never stdout's). */
  close(): void;
}

/** The path that journals to standard output. */
export const STDOUT_PATH = '-';

/**
 * Opens `path` for appending (`O_APPEND`: every write lands at the file's end at
 * the moment it is made, so any number of writers interleave whole writes and
 * never overwrite one another), creating it when missing; `-` is stdout.
 */
export function openJournalTarget(path: string): JournalTarget {
  if (path === STDOUT_PATH) return fdTarget(1, 'stdout', false, false);
  const fd = openSync(path, fsConstants.O_WRONLY | fsConstants.O_CREAT | fsConstants.O_APPEND, 0o644);
  try {
    const stat = fstatSync(fd);
    const endsTorn = stat.isFile() && stat.size > 0 && !endsWithNewline(path, stat.size);
    return fdTarget(fd, `${stat.dev}:${stat.ino}`, endsTorn, true);
  } catch (error) {
    closeSync(fd);
    throw error;
  }
}

function fdTarget(fd: number, key: string, endsTorn: boolean, owned: boolean): JournalTarget {
  return {
    fd,
    key,
    endsTorn,
    write: (bytes, offset) => writeSync(fd, bytes, offset, bytes.length - offset),
    close: () => {
      if (owned) closeSync(fd);
    },
  };
}

function endsWithNewline(path: string, size: number): boolean {
  const fd = openSync(path, 'r');
  try {
    const last = Buffer.alloc(1);
    readSync(fd, last, 0, 1, size - 1);
    return last[0] === 0x0a;
  } finally {
    closeSync(fd);
  }
}
