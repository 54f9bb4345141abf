// Lifecycle: close() closes the store the budget owns, a store built from a url never
// holds an idle process open, idle() resolves when nothing is owed (refusals owe
// nothing) and takes a timeout; no warning about calls that never reserved.
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBudget } from '../src/budget.js';
import { MemoryBudgetStore } from '../src/memory-store.js';
import { RedisBudgetStore } from '../src/redis-store.js';
import { attemptInfo, callRecord, DOLLAR_PER_OUTPUT_TOKEN } from './support/attempt-info.js';
import { freePort, startRedis, type TestRedis } from './support/start-redis.js';

const packageRoot = fileURLToPath(new URL('../', import.meta.url));
const childPath = fileURLToPath(new URL('./support/lifecycle-child.ts', import.meta.url));

interface ChildRun {
  readonly code: number | null;
  readonly signal: string | null;
  readonly ms: number;
  readonly seen: {
    refusals: string[];
    idle: boolean;
    idleMs: number;
    closed: boolean | null;
    warnings: string[];
  } | null;
  readonly stderr: string;
}

/**
 * The child store's command deadline: far past what a loaded machine takes, so a refusal comes from
 * Redis being down, never from a slow answer (while Redis is down a call is refused at once anyway).
 */
const COMMAND_TIMEOUT_MS = 5000;

/** Runs the child program; kills it (and says so) when it has not exited after `limitMs` (a hang guard). */
function runChild(url: string, mode: string, limitMs = 100_000): Promise<ChildRun> {
  const started = performance.now();
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', childPath, url, mode, String(COMMAND_TIMEOUT_MS)],
    {
      cwd: packageRoot,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => {
    stdout += String(chunk);
  });
  child.stderr.on('data', (chunk) => {
    stderr += String(chunk);
  });
  const timer = setTimeout(() => child.kill('SIGKILL'), limitMs);
  return new Promise((resolve) =>
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      const line = stdout.trim().split('\n').at(-1) ?? '';
      resolve({
        code,
        signal,
        ms: performance.now() - started,
        seen: line.startsWith('{') ? JSON.parse(line) : null,
        stderr,
      });
    }),
  );
}

describe('a budget on Redis, started and ended as a program does', () => {
  let redis: TestRedis;
  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(() => redis?.stop());

  it.each([
    ['owned', 'budget.close() closes the store it owns'],
    ['given', 'budget.close() then store.close()'],
    ['never-closed', 'neither closed: the socket does not hold the idle process'],
  ])('exits by itself when done (%s: %s)', async (mode) => {
    const run = await runChild(redis.url, mode);
    expect(run.signal, run.stderr).toBeNull();
    expect(run.code, run.stderr).toBe(0);
    expect(run.seen).toMatchObject({ refusals: [], idle: true });
    if (mode !== 'never-closed') expect(run.seen?.closed).toBe(true);
    expect(run.seen?.warnings).toEqual([]);
  });

  it('exits by itself when Redis is down: every call refused, idle() at once, no warning about settlements', async () => {
    const dead = `redis://127.0.0.1:${await freePort()}`;
    const run = await runChild(dead, 'refused');
    expect(run.signal, run.stderr).toBeNull();
    expect(run.code, run.stderr).toBe(0);
    expect(run.seen?.refusals).toEqual(['store_unreachable', 'store_unreachable', 'store_unreachable']);
    // Refusals owe nothing: idle() does not wait for the releases sent behind them.
    expect(run.seen?.idle).toBe(true);
    // Had it waited for a release sent to the dead Redis, it would have waited for its command's deadline.
    expect(run.seen?.idleMs).toBeLessThan(COMMAND_TIMEOUT_MS);
    expect(run.seen?.closed).toBe(true);
    expect(run.seen?.warnings.filter((warning) => /settlement/.test(warning))).toEqual([]);
  });

  it('leaves a given store open (it is its owner’s), and closes one it was told it owns', async () => {
    const given = new RedisBudgetStore({ url: redis.url, prefix: 'given:' });
    const owned = new RedisBudgetStore({ url: redis.url, prefix: 'owned:' });
    const scope = { name: 'own', limitUsd: 10 };
    const common = { scope, maxPricesOf: () => DOLLAR_PER_OUTPUT_TOKEN, onWarning: () => {} };
    const one = createBudget({ ...common, store: given });
    const two = createBudget({ ...common, store: owned, ownsStore: true });
    for (const budget of [one, two]) {
      const handle = await budget.beforeAttempt(attemptInfo({ maxTokens: 1 }));
      await handle.end({ record: callRecord(0.25), error: null, mayHaveBeenBilled: true });
      expect(await budget.close()).toBe(true);
    }
    // The given store still answers; the owned one was closed with its budget.
    expect(
      (await given.counters([{ key: '{own}', limitNanoUsd: null, maxInFlight: null }]))[0],
    ).toMatchObject({
      spentNanoUsd: 250_000_000,
    });
    await expect(owned.counters([{ key: '{own}', limitNanoUsd: null, maxInFlight: null }])).rejects.toThrow(
      /Redis at 127\.0\.0\.1:\d+/,
    );
    await given.close();
    // close() twice does no harm.
    expect(await two.close()).toBe(true);
  });

  it('idle({ timeoutMs }) resolves false while a settlement waits for Redis, true once it is recorded', async () => {
    // With persistence, so the lease is still there when Redis is back.
    const down = await startRedis({ persistence: { dir: mkdtempSync(join(tmpdir(), 'budget-life-')) } });
    const store = new RedisBudgetStore({ url: down.url, commandTimeoutMs: 300 });
    const warnings: string[] = [];
    const budget = createBudget({
      store,
      ownsStore: true,
      scope: { name: 'pending', limitUsd: 10 },
      maxPricesOf: () => DOLLAR_PER_OUTPUT_TOKEN,
      onWarning: (message) => warnings.push(message),
    });
    const handle = await budget.beforeAttempt(attemptInfo({ maxTokens: 2 }));
    await down.stop();
    await handle.end({ record: callRecord(1), error: null, mayHaveBeenBilled: true });
    const started = performance.now();
    // False once its 200 ms passed, the settlement still waiting (Redis is down): never sooner.
    expect(await budget.idle({ timeoutMs: 200 })).toBe(false);
    expect(performance.now() - started).toBeGreaterThanOrEqual(190);
    const back = await startRedis({ port: down.port, persistence: { dir: down.dir } });
    try {
      expect(await budget.idle({ timeoutMs: 15_000 })).toBe(true);
      // A settlement owed was warned about (it is money); nothing else was.
      expect(warnings.filter((warning) => !/settlement is not recorded yet/.test(warning))).toEqual([]);
      expect((await budget.usage())[0]).toMatchObject({ spentUsd: 1, reservedUsd: 0, inFlight: 0 });
    } finally {
      await budget.close({ timeoutMs: 1000 });
      await back.stop();
    }
  });

  it('checks the timeouts of idle() and close()', async () => {
    const budget = createBudget({ store: new MemoryBudgetStore(), scope: { name: 'checks' } });
    await expect(budget.idle({ timeoutMs: -1 })).rejects.toThrow(RangeError);
    await expect(budget.close({ timeoutMs: Number.NaN })).rejects.toThrow(
      'close: timeoutMs must be a number of milliseconds >= 0, got NaN',
    );
    await expect(budget.close({ timeoutMS: 5 } as never)).rejects.toThrow(
      'close options: unknown option `timeoutMS`; did you mean `timeoutMs`?',
    );
    expect(await budget.idle({ timeoutMs: 0 })).toBe(true);
  });
});
