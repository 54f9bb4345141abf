// A program whose Redis is gone when it closes its budget: it must be able to exit at once.
// Run with `node --import tsx close-child.ts <mode> [url]`. Modes: `stopped` (the url names
// a port nothing listens on: the store never connects), `killed` (the program starts its own
// redis-server, is granted a call, SIGKILLs the server and waits for its exit). Then one call
// is refused, budget.close() closes the store it owns, and the program writes one JSON line:
// the refusals, and the kinds of resource that kept its event loop alive before it did
// anything and right after close() resolved (process.getActiveResourcesInfo()).
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createRequire } from 'node:module';
import { createBudget } from '../../src/budget.js';
import { RedisBudgetStore } from '../../src/redis-store.js';
import { attemptInfo, callRecord, DOLLAR_PER_OUTPUT_TOKEN } from './attempt-info.js';
import { freePort } from './start-redis.js';

/** A redis-server of this program's own, ready once it says so; kill() waits until it and its pipes are gone. */
async function startServer(): Promise<{ url: string; kill(): Promise<void> }> {
  const port = await freePort();
  const server = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  let log = '';
  await new Promise<void>((resolve, reject) => {
    server.stdout.on('data', (chunk) => {
      log += String(chunk);
      if (/Ready to accept connections/.test(log)) resolve();
    });
    server.once('exit', (code) => reject(new Error(`redis-server exited with ${code}: ${log}`)));
  });
  return {
    url: `redis://127.0.0.1:${port}`,
    async kill() {
      const closed = once(server, 'close');
      server.kill('SIGKILL');
      await closed;
    },
  };
}

const [mode = 'stopped', given = ''] = process.argv.slice(2);
// The output streams are opened first, so the baseline holds them.
process.stdout.write('');
process.stderr.write('');
const before = process.getActiveResourcesInfo();
const redis = mode === 'killed' ? await startServer() : null;
const store = new RedisBudgetStore({ url: redis?.url ?? given, prefix: `close-${process.pid}:` });
const budget = createBudget({
  store,
  ownsStore: true,
  scope: { name: 'close', limitUsd: 10 },
  maxPricesOf: () => DOLLAR_PER_OUTPUT_TOKEN,
  onWarning: (message) => process.stderr.write(`warning: ${message}\n`),
});
const refusals: string[] = [];
if (redis !== null) {
  const handle = await budget.beforeAttempt(attemptInfo({ maxTokens: 2 }));
  await handle.end({ record: callRecord(0.5), error: null, mayHaveBeenBilled: true, settlement: 'exact' });
  await redis.kill();
}
try {
  await budget.beforeAttempt(attemptInfo({ maxTokens: 2 }));
} catch (error) {
  refusals.push((error as { reason?: string }).reason ?? String(error));
}
const closed = await budget.close({ timeoutMs: 5000 });
const after = process.getActiveResourcesInfo();
// Which ioredis the store loaded (5, or 6 under test/support/ioredis-6.cjs): pnpm's folder names its version.
const ioredis = /ioredis@(\d+)\./.exec(createRequire(import.meta.url).resolve('ioredis'))?.[1] ?? null;
process.stdout.write(`${JSON.stringify({ refusals, closed, before, after, ioredis })}\n`);
