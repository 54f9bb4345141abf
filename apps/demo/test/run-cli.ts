import { execFile } from 'node:child_process';
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
 * environment (plus PATH), so the developer's own keys never leak in.
 */
export function runCli(args: readonly string[], env: Record<string, string> = {}): Promise<CliRun> {
  if (!existsSync(CLI_PATH)) {
    throw new Error(`${CLI_PATH} is missing: build the CLI first (pnpm build)`);
  }
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [CLI_PATH, ...args],
      { env: { PATH: process.env.PATH ?? '', NO_COLOR: '1', ...env }, timeout: 30_000 },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === 'number' ? error.code : 1;
        resolve({ code, stdout, stderr });
      },
    );
  });
}
