// A program that uses a budget on Redis and then does nothing more: it must exit by
// itself. Run with `node --import tsx lifecycle-child.ts <redis url> <mode> <commandTimeoutMs>`. Modes:
// `owned` (the budget owns the store: budget.close() closes it), `given` (budget.close(),
// then store.close()), `never-closed` (neither: the store's socket must not hold the
// process open), `refused` (Redis is down: every call refused, then idle() and close()).
// Writes one JSON line to stdout: what it saw; warnings go to stderr.
import { createBudget } from '../../src/budget.js';
import { RedisBudgetStore } from '../../src/redis-store.js';
import { attemptInfo, callRecord, DOLLAR_PER_OUTPUT_TOKEN } from './attempt-info.js';

const [url = '', mode = 'owned', commandTimeoutMs = '5000'] = process.argv.slice(2);
const warnings: string[] = [];
const store = new RedisBudgetStore({
  url,
  prefix: `life-${process.pid}:`,
  commandTimeoutMs: Number(commandTimeoutMs),
});
const budget = createBudget({
  store,
  ownsStore: mode === 'owned' || mode === 'refused',
  scope: { name: 'life', limitUsd: 10 },
  maxPricesOf: () => DOLLAR_PER_OUTPUT_TOKEN,
  onWarning: (message) => {
    warnings.push(message);
    process.stderr.write(`warning: ${message}\n`);
  },
});
const refusals: string[] = [];
for (let call = 0; call < 3; call++) {
  try {
    const handle = await budget.beforeAttempt(attemptInfo({ maxTokens: 2 }));
    await handle.end({ record: callRecord(0.5), error: null, mayHaveBeenBilled: true, settlement: 'exact' });
  } catch (error) {
    refusals.push((error as { reason?: string }).reason ?? String(error));
  }
}
const idleStarted = performance.now();
const idle = await budget.idle({ timeoutMs: 5000 });
const idleMs = performance.now() - idleStarted;
let closed: boolean | null = null;
if (mode !== 'never-closed') closed = await budget.close({ timeoutMs: 5000 });
if (mode === 'given') await store.close();
process.stdout.write(`${JSON.stringify({ refusals, idle, idleMs, closed, warnings })}\n`);
