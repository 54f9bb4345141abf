import { execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The built CLI that users run; the e2e tests spawn it as a real process. */
const CLI_PATH = fileURLToPath(new URL('../dist/cli.js', import.meta.url));

/** What one run of the CLI printed and how it exited. */
export interface CliRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Runs `switchboard ...args` in a child process with only the given
 * environment (plus PATH), so the developer's own keys never leak in; `input`
 * is written to its stdin, which is then closed; `cwd` is its working directory.
 */
export function runCli(
  args: readonly string[],
  env: Record<string, string> = {},
  input = '',
  cwd?: string,
): Promise<CliRun> {
  if (!existsSync(CLI_PATH)) {
    throw new Error(`${CLI_PATH} is missing: build the CLI first (pnpm build)`);
  }
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      [CLI_PATH, ...args],
      { env: { PATH: process.env.PATH ?? '', NO_COLOR: '1', ...env }, timeout: 30_000, cwd },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === 'number' ? error.code : 1;
        resolve({ code, stdout, stderr });
      },
    );
    child.stdin?.end(input);
  });
}

/**
 * Runs `switchboard ...args` under a pseudo-terminal (util-linux `script`), so
 * stdout and stderr are TTYs unless `shellTail` redirects one (e.g. `2>file`);
 * returns what the terminal showed.
 */
export function runCliInTerminal(
  args: readonly string[],
  env: Record<string, string> = {},
  shellTail = '',
): Promise<CliRun> {
  const quoted = [process.execPath, CLI_PATH, ...args].map((word) => `'${word.replaceAll("'", "'\\''")}'`);
  return new Promise((resolve) => {
    const child = execFile(
      'script',
      ['-qec', `${quoted.join(' ')} ${shellTail}`, '/dev/null'],
      { env: { PATH: process.env.PATH ?? '', ...env }, timeout: 30_000 },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === 'number' ? error.code : 1;
        resolve({ code, stdout, stderr });
      },
    );
    child.stdin?.end();
  });
}

/**
 * Runs `switchboard ...args` with its stdout piped to a reader that closes the pipe after the
 * first chunk, as `| head -c 1` does: what the CLI writes after that meets a closed pipe (EPIPE).
 * Resolves once the process has exited, with what it wrote to stderr.
 */
export function runCliIntoClosedPipe(
  args: readonly string[],
  env: Record<string, string> = {},
): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI_PATH, ...args], {
      env: { PATH: process.env.PATH ?? '', NO_COLOR: '1', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.once('data', (chunk: Buffer) => {
      stdout = chunk.toString();
      child.stdout.destroy();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.on('error', reject);
    child.on('close', (code, signal) =>
      resolve({ code: code ?? (signal === null ? 1 : 128), stdout, stderr }),
    );
  });
}
