// One worker process of the budget-stores benchmark: `lanes` lanes of reserve then settle, back to back, on a
// budget whose store is given by kind (memory, redis, postgres, postgres-settle-async: synchronousCommit 'off') and url. Reports its latencies (ms) over IPC.
import {
  type BudgetStore,
  createBudget,
  MemoryBudgetStore,
  PostgresBudgetStore,
  RedisBudgetStore,
} from '@switchboard/budget';
import { BUDGET_INFO, BUDGET_PRICES, BUDGET_RECORD } from './budget-settings.js';

const [kind, url, lanesText, callsText] = process.argv.slice(2);
const lanes = Number(lanesText);
const calls = Number(callsText);
const store: BudgetStore =
  kind === 'redis'
    ? new RedisBudgetStore({ url: url ?? '', prefix: 'bench-stores:' })
    : kind === 'postgres'
      ? new PostgresBudgetStore({ url: url ?? '', schema: 'bench' })
      : kind === 'postgres-settle-async'
        ? new PostgresBudgetStore({ url: url ?? '', schema: 'bench_async', synchronousCommit: 'off' })
        : new MemoryBudgetStore();
const budget = createBudget({
  store,
  ownsStore: true,
  scope: { name: 'bench-stores', limitUsd: 1_000_000, maxInFlight: 100_000 },
  maxPricesOf: () => BUDGET_PRICES,
});
const bothMs: number[] = [];
let refused = 0;
let next = 0;

async function lane(): Promise<void> {
  while (next < calls) {
    next += 1;
    const started = performance.now();
    try {
      const handle = await budget.beforeAttempt(BUDGET_INFO);
      await handle.end({ record: BUDGET_RECORD, error: null, mayHaveBeenBilled: true });
      bothMs.push(performance.now() - started);
    } catch {
      // Refused (the store did not answer in time): counted, not timed.
      refused += 1;
    }
  }
}

// Warm up (connections, scripts, the tables), then wait for the parent's go so all workers start together.
for (let warmUp = 0; warmUp < 30; warmUp++) {
  const handle = await budget.beforeAttempt(BUDGET_INFO);
  await handle.end({ record: BUDGET_RECORD, error: null, mayHaveBeenBilled: true });
}
bothMs.length = 0;
process.send?.({ type: 'ready' });
process.once('message', async () => {
  const started = performance.now();
  await Promise.all(Array.from({ length: lanes }, () => lane()));
  const wallMs = performance.now() - started;
  await budget.close({ timeoutMs: 10_000 });
  process.send?.({ type: 'done', bothMs, wallMs, refused }, () => process.disconnect());
});
