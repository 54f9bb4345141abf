// A store's close() while Redis is down leaves nothing that keeps the process alive: no
// reconnection, no socket, no timer of ioredis's (its command timeout, its timer to destroy
// a socket already lost) nor of the store's. Before, a program lingered about 2 s after
// close(): a release queued while ioredis reconnected held its command timers, and ioredis's
// disconnect timer waited for a socket that had closed long before. On ioredis 5 and 6 alike
// (6 through test/support/ioredis-6.cjs, which makes the child's require('ioredis') load it).
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { freePort } from './support/start-redis.js';

const packageRoot = fileURLToPath(new URL('../', import.meta.url));
const childPath = fileURLToPath(new URL('./support/close-child.ts', import.meta.url));
const ioredis6 = fileURLToPath(new URL('./support/ioredis-6.cjs', import.meta.url));

interface Seen {
  readonly refusals: string[];
  readonly closed: boolean;
  readonly before: string[];
  readonly after: string[];
  readonly ioredis: string | null;
}

/** Runs the child to its end (no timer of ours kills it: it must end by itself). */
function runChild(
  args: readonly string[],
  preload: readonly string[],
): Promise<{ code: number | null; signal: string | null; seen: Seen | null; stderr: string }> {
  const child = spawn(process.execPath, [...preload, '--import', 'tsx', childPath, ...args], {
    cwd: packageRoot,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => {
    stdout += String(chunk);
  });
  child.stderr.on('data', (chunk) => {
    stderr += String(chunk);
  });
  return new Promise((resolve) =>
    child.on('exit', (code, signal) => {
      const line = stdout.trim().split('\n').at(-1) ?? '';
      resolve({ code, signal, seen: line.startsWith('{') ? (JSON.parse(line) as Seen) : null, stderr });
    }),
  );
}

/** What `after` holds beyond `before` (as multisets). */
function added(after: readonly string[], before: readonly string[]): string[] {
  const left = [...before];
  return after.filter((kind) => {
    const at = left.indexOf(kind);
    if (at < 0) return true;
    left.splice(at, 1);
    return false;
  });
}

describe('RedisBudgetStore.close() while Redis is down', () => {
  it.each([
    ['5', 'stopped', 'a url where nothing listens: the store never connected'],
    ['5', 'killed', 'redis-server SIGKILLed after a granted call: the store was reconnecting'],
    ['6', 'stopped', 'a url where nothing listens: the store never connected'],
    ['6', 'killed', 'redis-server SIGKILLed after a granted call: the store was reconnecting'],
  ])('leaves nothing that keeps the process alive (ioredis %s, %s: %s)', async (version, mode) => {
    const args = mode === 'stopped' ? [mode, `redis://127.0.0.1:${await freePort()}`] : [mode];
    const run = await runChild(args, version === '6' ? ['--require', ioredis6] : []);
    expect(run.seen?.ioredis, run.stderr).toBe(version);
    // It ended by itself, cleanly, with nothing of the store left once close() resolved.
    expect(run.signal, run.stderr).toBeNull();
    expect(run.code, run.stderr).toBe(0);
    expect(run.seen?.refusals).toEqual(['store_unreachable']);
    expect(run.seen?.closed).toBe(true);
    expect(added(run.seen?.after ?? ['no report'], run.seen?.before ?? [])).toEqual([]);
  });
});
