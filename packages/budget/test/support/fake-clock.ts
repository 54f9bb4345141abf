import { chmodSync, mkdtempSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { clockShim } from './clock-shim.js';

/** A server's clock, moved by the test while the server runs: an offset from the real clock in a file the shim reads at each call. */
export interface MovableClock {
  /** The server process's environment. */
  readonly env: Readonly<Record<string, string>>;
  /** Moves the server's clock so that it reads about `iso` now (whole seconds; the clock keeps running). */
  moveTo(iso: string): void;
}

/**
 * A clock for a server started with `env`, which preloads our clock shim (clock-shim.c: it reads the
 * offset with raw system calls and allocates nothing, so a server may ask the time in a signal handler,
 * as PostgreSQL's timeouts do; libfaketime reads it with `fopen`, which allocates, and a PostgreSQL
 * under it restarted from a crashed backend in a fleet-midnight run under load). The offset is written
 * beside the file and renamed onto it: a reader sees the old offset or the new, never an empty file.
 */
export function movableClock(): MovableClock {
  const shim = clockShim();
  const dir = mkdtempSync(join(tmpdir(), 'budget-clock-'));
  chmodSync(dir, 0o755);
  const file = join(dir, 'offset');
  const write = (offsetSeconds: number) => {
    const next = `${file}.next`;
    writeFileSync(next, `${offsetSeconds >= 0 ? '+' : ''}${offsetSeconds}\n`);
    chmodSync(next, 0o644);
    renameSync(next, file);
  };
  write(0);
  return {
    env: { LD_PRELOAD: shim, FAKETIME_TIMESTAMP_FILE: file },
    moveTo(iso) {
      write(Math.round((Date.parse(iso) - Date.now()) / 1000));
    },
  };
}
