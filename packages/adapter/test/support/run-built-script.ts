import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** How a child process ended and what it printed. */
export interface ScriptRun {
  code: number | null;
  signal: string | null;
  /** False when the bound ran out and the child was killed. */
  exitedByItself: boolean;
  stdout: string;
  stderr: string;
}

const packageRoot = new URL('../../', import.meta.url);

/**
 * Runs a fixture script of `test/reliability/fixtures` in a child `node` on the built packages
 * (turbo builds them before `test`), killing it after `boundMs`. Fails naming a missing build.
 */
export async function runBuiltScript(
  name: string,
  options: { args?: string[]; env?: NodeJS.ProcessEnv; boundMs?: number } = {},
): Promise<ScriptRun> {
  for (const built of ['dist/index.js', '../emulator/dist/index.js', '../prices/dist/index.js']) {
    if (!existsSync(new URL(built, packageRoot))) {
      throw new Error(`packages/adapter/${built} is missing: build the packages first`);
    }
  }
  const script = fileURLToPath(new URL(`test/reliability/fixtures/${name}`, packageRoot));
  const child = spawn(process.execPath, [script, ...(options.args ?? [])], {
    cwd: fileURLToPath(packageRoot),
    stdio: ['ignore', 'pipe', 'pipe'],
    ...(options.env ? { env: options.env } : {}),
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString('utf8');
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  return new Promise((resolve) => {
    const bound = setTimeout(() => {
      child.kill('SIGKILL');
    }, options.boundMs ?? 20_000);
    bound.unref();
    child.on('exit', (code, signal) => {
      clearTimeout(bound);
      resolve({ code, signal, exitedByItself: signal !== 'SIGKILL', stdout, stderr });
    });
  });
}
