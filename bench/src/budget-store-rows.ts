// The rows of the budget store benchmarks (bench:budget-stores, bench:ledger): worker processes, each running lanes
// of reserve + settle back to back on one budget (budget-stores-worker.ts), started together; their latencies and
// the wall time of the slowest.
import { type ChildProcess, fork } from 'node:child_process';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';

const workerPath = fileURLToPath(new URL('./budget-stores-worker.ts', import.meta.url));

/**
 * The reserve + settle pairs a worker makes before the parent's go, `lanes` at once (so every connection its
 * lanes will use is open, and its server process warm, before the row is timed): about `atLeast` in all, at least
 * 2 a lane.
 */
export function warmUpPairs(lanes: number, atLeast = 30): number {
  return lanes * Math.max(2, Math.ceil(atLeast / lanes));
}

/** The value below which `share` of `values` lie (nearest rank). */
function percentile(values: readonly number[], share: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(share * sorted.length))] ?? Number.NaN;
}

export interface Row {
  readonly store: string;
  readonly shape: string;
  readonly calls: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly callsPerSecond: number;
  /** Calls refused because the store did not answer in time. */
  readonly refused: number;
  /** The worker processes' own CPU time per pair over their lanes (user + system), in ms. */
  readonly clientCpuMsPerPair: number;
  /** The machine's 1-minute load average when the row started and when it ended. */
  readonly load: readonly [number, number];
  /** redis-interleaved: the p50 of two EVALSHA of a trivial script, timed after each pair in the same lanes. */
  readonly floorP50Ms: number | null;
}

/** Runs `workers` processes × `lanes` lanes of `calls` pairs each on the store `store` at `url` (a role: root + role). */
export async function row(
  store: string,
  url: string,
  workers: number,
  lanes: number,
  calls: number,
  role?: string,
  warmUp?: number,
): Promise<Row> {
  const loadBefore = loadavg()[0] ?? 0;
  const argv = [store, url, String(lanes), String(calls), role ?? '', String(warmUpPairs(lanes, warmUp))];
  const children = Array.from({ length: workers }, () =>
    fork(workerPath, argv, { execArgv: ['--import', 'tsx'] }),
  );
  // Each worker's next message; a worker that ends first fails the run (rather than leaving it waiting forever).
  // 'close', not 'exit': a worker exits right after its last (large) message is sent, and 'exit' can come
  // before that message has been read; 'close' comes once its IPC channel has been read to the end.
  const next = (child: ChildProcess) =>
    new Promise<unknown>((resolve, reject) => {
      const exited = (code: number | null) =>
        reject(new Error(`a ${store} worker exited with ${code} before it reported`));
      child.once('close', exited);
      child.once('message', (message) => {
        child.off('close', exited);
        resolve(message);
      });
    });
  await Promise.all(children.map(next));
  const results = children.map(next);
  for (const child of children) child.send({ type: 'go' });
  const done = (await Promise.all(results)) as {
    bothMs: number[];
    floorMs: number[];
    wallMs: number;
    refused: number;
    cpuMs: number;
  }[];
  const both = done.flatMap((result) => result.bothMs);
  const floor = done.flatMap((result) => result.floorMs);
  const wallMs = Math.max(...done.map((result) => result.wallMs));
  return {
    store,
    shape: workers === 1 && lanes === 1 ? 'sequential' : `${workers} processes × ${lanes} concurrent`,
    calls: both.length,
    p50Ms: percentile(both, 0.5),
    p99Ms: percentile(both, 0.99),
    callsPerSecond: (both.length / wallMs) * 1000,
    refused: done.reduce((sum, result) => sum + result.refused, 0),
    clientCpuMsPerPair: done.reduce((sum, result) => sum + result.cpuMs, 0) / both.length,
    load: [loadBefore, loadavg()[0] ?? 0],
    floorP50Ms: floor.length === 0 ? null : percentile(floor, 0.5),
  };
}
