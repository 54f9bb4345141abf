import { spawn } from 'node:child_process';
import { createWriteStream, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * The built CLI, run as users run it; `BENCH_CLI` names another build of it (e.g. one bundled into a single
 * file, so that a rebuild of the workspace's packages during a long run cannot change what is measured).
 */
const CLI = process.env.BENCH_CLI ?? fileURLToPath(new URL('../../apps/demo/dist/cli.js', import.meta.url));

/** One run of the CLI: its wall time, peak RSS and exit status. */
export interface CliRun {
  readonly seconds: number;
  readonly peakRssMiB: number;
  readonly code: number | null;
}

/**
 * Runs the CLI with `args`, sampling its peak RSS (VmHWM) every 20 ms; kills it after
 * `killAfterMs` when given. `nodeOptions`: flags for node itself (e.g. a heap cap).
 */
export function measure(args: string[], killAfterMs?: number, nodeOptions: string[] = []): Promise<CliRun> {
  const started = performance.now();
  const child = spawn(process.execPath, [...nodeOptions, CLI, ...args], {
    stdio: ['ignore', 'ignore', 'ignore'],
  });
  let peak = 0;
  const sample = () => {
    try {
      const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
      peak = Math.max(peak, Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0) * 1024);
    } catch {
      // Ended between samples.
    }
  };
  const timer = setInterval(sample, 20);
  const killer = killAfterMs === undefined ? null : setTimeout(() => child.kill('SIGKILL'), killAfterMs);
  return new Promise((resolve) =>
    child.on('exit', (code) => {
      clearInterval(timer);
      if (killer !== null) clearTimeout(killer);
      resolve({ seconds: (performance.now() - started) / 1000, peakRssMiB: peak / 2 ** 20, code });
    }),
  );
}

/** Writes `count` lines (`lineOf(index)`, without their newline) to `path`, 10,000 per write, waiting for drains. */
export async function writeLines(
  path: string,
  count: number,
  lineOf: (index: number) => string,
): Promise<void> {
  const out = createWriteStream(path);
  let chunk: string[] = [];
  for (let index = 0; index < count; index++) {
    chunk.push(lineOf(index));
    if (chunk.length === 10_000) {
      if (!out.write(`${chunk.join('\n')}\n`))
        await new Promise<void>((resolve) => out.once('drain', () => resolve()));
      chunk = [];
    }
  }
  out.end(chunk.length > 0 ? `${chunk.join('\n')}\n` : '');
  await new Promise<void>((resolve) => out.on('finish', () => resolve()));
}
