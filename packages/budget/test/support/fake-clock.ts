import { chmodSync, existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Why a test that moves a server's clock cannot run. */
export const LIBFAKETIME_MISSING =
  "libfaketime is not installed: apt-get install libfaketime (or set FAKETIME_LIB to its libfaketime.so.1); the budget tests move a PostgreSQL server's clock with it";

/**
 * libfaketime, the clock shim a server process is started with (`LD_PRELOAD`): `FAKETIME_LIB`,
 * else Debian's path, else null (not installed: the tests that move a server's clock fail, saying so).
 */
export function libfaketime(): string | null {
  const candidates = [
    process.env.FAKETIME_LIB,
    '/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1',
    '/usr/lib/aarch64-linux-gnu/faketime/libfaketime.so.1',
    '/usr/local/lib/faketime/libfaketime.so.1',
  ];
  return candidates.find((path) => path !== undefined && path !== '' && existsSync(path)) ?? null;
}

/** A server's clock, moved by the test while the server runs: an offset from the real clock in a file the shim reads at each call. */
export interface MovableClock {
  /** The server process's environment. */
  readonly env: Readonly<Record<string, string>>;
  /** Moves the server's clock so that it reads about `iso` now (whole seconds; the clock keeps running). */
  moveTo(iso: string): void;
}

export function movableClock(lib: string): MovableClock {
  const dir = mkdtempSync(join(tmpdir(), 'budget-clock-'));
  chmodSync(dir, 0o755);
  const file = join(dir, 'offset');
  const write = (offsetSeconds: number) => {
    writeFileSync(file, `${offsetSeconds >= 0 ? '+' : ''}${offsetSeconds}\n`);
    chmodSync(file, 0o644);
  };
  write(0);
  return {
    env: {
      LD_PRELOAD: lib,
      FAKETIME_TIMESTAMP_FILE: file,
      FAKETIME_NO_CACHE: '1',
      FAKETIME_DONT_FAKE_MONOTONIC: '1',
    },
    moveTo(iso) {
      write(Math.round((Date.parse(iso) - Date.now()) / 1000));
    },
  };
}
