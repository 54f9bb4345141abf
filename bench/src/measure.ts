import type { BenchClient, ClientId } from './clients.js';

/** What one batch of calls of one client cost. */
export interface BatchResult {
  /** Milliseconds each call took, from start to resolved answer. */
  readonly latenciesMs: number[];
  /** Wall-clock milliseconds of the whole batch. */
  readonly wallMs: number;
  /** CPU microseconds (user + system) this process spent during the batch. */
  readonly cpuMicros: number;
  /** Total characters of answer content received (a check that work was done). */
  readonly contentChars: number;
}

const collectGarbage = (globalThis as { gc?: (options?: { type: 'major' | 'minor' }) => void }).gc;

/**
 * How garbage is collected before each batch (with --expose-gc): `full`, a full collection (a
 * full collection also throws away optimized code whose objects died, which the batch then
 * optimizes again); `minor`, the young generation only, where a call's garbage lives.
 */
export type Collection = 'full' | 'minor';

/** A client as a scenario runs it: batch by batch, in this process or in one of its own. */
export interface BatchRunner {
  readonly id: ClientId;
  readonly label: string;
  batch(calls: number, concurrency: number, collection: Collection): Promise<BatchResult>;
}

/** `client`'s batches, run in this process. */
export function inProcess(client: BenchClient): BatchRunner {
  return {
    id: client.id,
    label: client.label,
    batch: (calls, concurrency, collection) => runBatch(client, calls, concurrency, collection),
  };
}

/**
 * Makes `calls` calls with at most `concurrency` in flight. Garbage left by the
 * previous batch is collected first (with --expose-gc), so each client pays
 * for its own allocations.
 */
export async function runBatch(
  client: BenchClient,
  calls: number,
  concurrency: number,
  collection: Collection = 'full',
): Promise<BatchResult> {
  collectGarbage?.(collection === 'minor' ? { type: 'minor' } : undefined);
  const latenciesMs = new Array<number>(calls);
  let next = 0;
  let contentChars = 0;
  const worker = async () => {
    while (next < calls) {
      const index = next++;
      const started = performance.now();
      const chars = await client.call();
      contentChars += chars;
      latenciesMs[index] = performance.now() - started;
    }
  };
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  await Promise.all(Array.from({ length: Math.min(concurrency, calls) }, worker));
  const wallMs = performance.now() - started;
  const cpu = process.cpuUsage(cpuBefore);
  return { latenciesMs, wallMs, cpuMicros: cpu.user + cpu.system, contentChars };
}

/** The median of a list of numbers (the mean of the middle two for an even count). */
export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1
    ? (sorted[middle] ?? Number.NaN)
    : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
}

/**
 * The client order of round `round`: rotated by one each round and reversed on
 * odd rounds, so every client runs early and late, before and after each other.
 */
export function roundOrder<T>(items: readonly T[], round: number): T[] {
  const shift = round % items.length;
  const rotated = [...items.slice(shift), ...items.slice(0, shift)];
  return round % 2 === 1 ? rotated.reverse() : rotated;
}
