import { type ChildProcessByStdio, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import type { CodeBlock } from './extract-code-blocks.js';

/** Where and how a block is run. */
export interface RunCodeBlockOptions {
  /** The folder the block's file is written under: its node_modules serve the block's own imports. */
  readonly folder: string;
  /** Module names mapped to the file they resolve to, e.g. `@switchboard/prices` to its `src/index.ts`. */
  readonly paths: Readonly<Record<string, string>>;
  /** The whole environment the block runs with (nothing else of this process's is passed). */
  readonly env: Readonly<Record<string, string>>;
  /** How long it may take to end by itself; default 30 s. */
  readonly timeoutMs?: number;
}

/** How a run ended: `ok` when the process exited 0 by itself in time; its output either way. */
export interface RunOutcome {
  readonly ok: boolean;
  /** stdout and stderr as they came. */
  readonly output: string;
  /** stdout alone: what the program printed, without the warnings libraries write on stderr. */
  readonly stdout: string;
}

const TSX = join(import.meta.dirname, '../node_modules/tsx/dist/cli.mjs');

/**
 * Runs a block (with the blocks it continues) as a program of its own with tsx, in a new
 * empty working directory: ESM, or CommonJS when it calls require(). It must end by itself
 * with exit code 0 (an example that leaves a server open never ends, and fails).
 */
export function runCodeBlock(block: CodeBlock, options: RunCodeBlockOptions): Promise<RunOutcome> {
  const commonJs = /\brequire\(/.test(block.code);
  mkdirSync(options.folder, { recursive: true });
  const home = mkdtempSync(join(options.folder, 'block-'));
  const file = join(home, `block.${commonJs ? 'c' : 'm'}${block.language}`);
  writeFileSync(file, `${block.prelude}${block.code}\n`);
  const paths = Object.fromEntries(Object.entries(options.paths).map(([name, entry]) => [name, [entry]]));
  const tsconfig = join(home, 'tsconfig.json');
  writeFileSync(tsconfig, JSON.stringify({ compilerOptions: { paths, target: 'ES2022' } }));
  const cwd = mkdtempSync(join(tmpdir(), 'switchboard-docs-run-'));
  const timeoutMs = options.timeoutMs ?? 30_000;
  const child = spawn(process.execPath, [TSX, '--tsconfig', tsconfig, file], {
    cwd,
    env: { ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return endOf(child, timeoutMs, () => child.kill('SIGKILL')).then(({ code, timedOut, output, stdout }) => {
    rmSync(home, { recursive: true, force: true });
    rmSync(cwd, { recursive: true, force: true });
    const why = timedOut
      ? `did not end within ${timeoutMs / 1000} s (a server or handle left open?)`
      : `exited ${code}`;
    return {
      ok: !timedOut && code === 0,
      output: code === 0 && !timedOut ? output : `${why}\n${output}`,
      stdout,
    };
  });
}

/** Where and how a shell recipe is run. */
export interface RunShellRecipeOptions {
  /** The working directory it starts in. */
  readonly cwd: string;
  /** The whole environment it runs with. */
  readonly env: Readonly<Record<string, string>>;
  /** How long it may take; default 10 minutes. */
  readonly timeoutMs?: number;
}

/**
 * Runs a recipe's commands as one bash script (`set -euo pipefail`, each command traced):
 * `ok` when every command succeeded and it ended in time; its output either way.
 */
export function runShellRecipe(
  recipe: { readonly script: string },
  options: RunShellRecipeOptions,
): Promise<RunOutcome> {
  const timeoutMs = options.timeoutMs ?? 600_000;
  const child = spawn('bash', ['-c', `set -euxo pipefail\n${recipe.script}\n`], {
    cwd: options.cwd,
    env: { ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  // The whole process group on a timeout: the script and every command it started.
  const killGroup = () => {
    if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
  };
  return endOf(child, timeoutMs, killGroup).then(({ code, timedOut, output, stdout }) => {
    const why = timedOut ? `did not end within ${timeoutMs / 1000} s` : `exited ${code}`;
    return { ok: !timedOut && code === 0, output: `${why}\n${output}`, stdout };
  });
}

/** How a child process ended: its exit code, whether it was killed for time, and what it wrote. */
interface ChildEnd {
  readonly code: number | null;
  readonly timedOut: boolean;
  /** stdout and stderr as they came. */
  readonly output: string;
  readonly stdout: string;
}

/** Collects a child's output until it closes; past `timeoutMs` it is ended with `kill`. */
function endOf(
  child: ChildProcessByStdio<null, Readable, Readable>,
  timeoutMs: number,
  kill: () => void,
): Promise<ChildEnd> {
  return new Promise((resolve) => {
    let output = '';
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      stdout += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      kill();
    }, timeoutMs);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, timedOut, output, stdout });
    });
  });
}
