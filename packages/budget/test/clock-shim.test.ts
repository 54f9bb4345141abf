// The clock shim the budget tests preload into PostgreSQL and redis-server (support/clock-shim.c): it moves
// the wall clock by the offset fake-clock.ts writes, and it is safe where a server asks the time, also in a
// signal handler that lands inside malloc (PostgreSQL's timeouts): a C program asks the time 20,000 times
// from SIGALRM handlers while it allocates, under the shim, and must end normally with its clock moved.
// (libfaketime, which the tests used before, reads its file with fopen: the same program aborts under it
// with a corrupted heap, as a PostgreSQL backend did once in fleet-midnight.)
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { movableClock } from './support/fake-clock.js';

const SIGNALS = 20_000;

function buildProgram(): string {
  const source = fileURLToPath(new URL('./support/time-in-signal-handler.c', import.meta.url));
  const program = join(mkdtempSync(join(tmpdir(), 'clock-shim-test-')), 'time-in-signal-handler');
  execFileSync('cc', ['-O2', '-Wall', '-o', program, source], { stdio: 'pipe' });
  return program;
}

describe('the clock shim (clock-shim.c)', () => {
  it('moves the wall clock, and a process asking the time in signal handlers while it allocates runs to its end', () => {
    const program = buildProgram();
    const clock = movableClock();
    clock.moveTo('2031-06-01T12:00:00Z');
    const run = spawnSync(program, [String(SIGNALS)], {
      env: { ...process.env, ...clock.env },
      encoding: 'utf8',
      timeout: 120_000,
    });
    expect(run.signal, run.stderr).toBeNull();
    expect(run.status, run.stderr).toBe(0);
    const [handled, seconds] = run.stdout.trim().split(' ').map(Number);
    expect(handled).toBeGreaterThanOrEqual(SIGNALS);
    // Moved to 2031 (whole seconds; the run took at most its timeout).
    expect(Math.abs((seconds ?? 0) * 1000 - Date.parse('2031-06-01T12:00:00Z'))).toBeLessThan(180_000);
  });
});
