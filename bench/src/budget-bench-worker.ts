// One worker process of the Redis row of the budget benchmark: `lanes` lanes of
// reserve, hold for `callMs` (a stand-in for the chat call), settle, against a
// budget on Redis shared with the other workers. Reports its latencies (ms) to the parent over IPC.
import { createBudget, RedisBudgetStore } from '@switchboard/budget';
import { BUDGET_INFO, BUDGET_PRICES, BUDGET_RECORD } from './budget-settings.js';

const [redisUrl, lanesText, callsText, callMsText] = process.argv.slice(2);
const lanes = Number(lanesText);
const calls = Number(callsText);
/** How long each call is held between reserve and settle, as a chat call would be. */
const callMs = Number(callMsText);
const store = new RedisBudgetStore({ url: redisUrl ?? '', prefix: 'bench:' });
const budget = createBudget({
  store,
  scope: { name: 'bench-run', limitUsd: 1_000_000, maxInFlight: 100_000 },
  maxPricesOf: () => BUDGET_PRICES,
});
const reserveMs: number[] = [];
const settleMs: number[] = [];
/** Reserve plus settle of each call: the budget's whole cost to an attempt, the held time left out. */
const bothMs: number[] = [];
let next = 0;

async function lane(): Promise<void> {
  while (next < calls) {
    next += 1;
    const started = performance.now();
    const handle = await budget.beforeAttempt(BUDGET_INFO);
    const reserved = performance.now();
    if (callMs > 0) await new Promise((resolve) => setTimeout(resolve, callMs));
    const ending = performance.now();
    await handle.end({ record: BUDGET_RECORD, error: null, mayHaveBeenBilled: true });
    const settled = performance.now();
    settleMs.push(settled - ending);
    reserveMs.push(reserved - started);
    bothMs.push(reserved - started + (settled - ending));
  }
}

// Warm up (connection, script load), then wait for the parent's go so all workers start together.
for (let warmUp = 0; warmUp < 50; warmUp++) {
  const handle = await budget.beforeAttempt(BUDGET_INFO);
  await handle.end({ record: BUDGET_RECORD, error: null, mayHaveBeenBilled: true });
}
reserveMs.length = 0;
settleMs.length = 0;
bothMs.length = 0;
next = 0;
process.send?.({ type: 'ready' });
process.once('message', async () => {
  const started = performance.now();
  await Promise.all(Array.from({ length: lanes }, () => lane()));
  const wallMs = performance.now() - started;
  await budget.close();
  await store.close();
  process.send?.({ type: 'done', reserveMs, settleMs, bothMs, wallMs }, () => process.disconnect());
});
