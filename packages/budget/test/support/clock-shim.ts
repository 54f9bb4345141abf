import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Why a test that moves a server's clock cannot run. */
const CLOCK_SHIM_UNBUILT =
  'the clock shim for the test servers could not be compiled: install a C compiler (apt-get install gcc libc6-dev); the budget tests move a redis-server and a PostgreSQL clock with it';

/**
 * The clock shim (`clock-shim.c`) built into a shared library, once per source text: what
 * `movableClock` preloads into redis-server and PostgreSQL (clock-shim.c says why not libfaketime). Throws naming what is
 * missing when there is no C compiler (CI installs one; .ci/run).
 */
export function clockShim(): string {
  const source = fileURLToPath(new URL('./clock-shim.c', import.meta.url));
  const digest = createHash('sha256').update(readFileSync(source)).digest('hex').slice(0, 16);
  const dir = join(tmpdir(), 'switchboard-clock-shim');
  const library = join(dir, `clock-shim-${digest}.so`);
  if (existsSync(library)) return library;
  mkdirSync(dir, { recursive: true, mode: 0o755 });
  // Built beside its final name and renamed: test files building it at once never load half a file.
  const building = `${library}.${process.pid}.tmp`;
  try {
    execFileSync('cc', ['-shared', '-fPIC', '-O2', '-Wall', '-o', building, source], { stdio: 'pipe' });
  } catch (error) {
    const stderr = (error as { stderr?: Buffer }).stderr?.toString() ?? '';
    throw new Error(`${CLOCK_SHIM_UNBUILT}: ${String(error)} ${stderr}`);
  }
  renameSync(building, library);
  return library;
}
