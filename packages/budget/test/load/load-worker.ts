// One worker process of the load test: `concurrency` calls at a time through a
// ChatAdapter over OpenAITransport whose observer is a budget on Redis shared with
// the other workers; each attempt is settled or released.
// Reports to the parent over IPC. Run with `node --import tsx`.
import { ChatAdapter, OpenAITransport } from '@switchboard/adapter';
import { costOf, priceOf } from '@switchboard/prices';
import { createBudget } from '../../src/budget.js';
import { RedisBudgetStore } from '../../src/redis-store.js';

/** The worker's settings, passed as JSON in argv[2]. */
export interface WorkerSettings {
  readonly index: number;
  readonly redisUrl: string;
  readonly baseUrl: string;
  readonly apiKey: string;
  readonly prefix: string;
  readonly root: { name: string; limitUsd: number; maxInFlight: number };
  readonly calls: number;
  readonly concurrency: number;
  readonly leaseTtlMs: number;
  readonly maxTokens: number;
}

/** What a worker reports. */
export type WorkerReport =
  | { type: 'progress'; settled: number; leases: number }
  | {
      type: 'done';
      /** Sum of its own call records' costs, in nano-dollars as the budget settles them. */
      settledNanoUsd: number;
      records: number;
      /** Calls refused because their worst case did not fit the budget. */
      refusals: number;
      /** Calls that ended with any other error (faults past the retries, and the like). */
      failures: number;
      /** Attempts the budget let through, and attempt handles ended. */
      granted: number;
      ended: number;
      refusalMessage: string | null;
    };

const settings = JSON.parse(process.argv[2] ?? '{}') as WorkerSettings;
// Generous: on a loaded machine a worker's event loop can stall for seconds, and a
// command whose answer waits behind the stall would count as Redis being unreachable.
const store = new RedisBudgetStore({
  url: settings.redisUrl,
  prefix: settings.prefix,
  commandTimeoutMs: 15_000,
});
const root = createBudget({
  store,
  scope: settings.root,
  leaseTtlMs: settings.leaseTtlMs,
  slotWaitMs: 60_000,
  onWarning: (message) => process.stderr.write(`worker ${settings.index}: ${message}\n`),
});
// Each worker also has a scope of its own, so its spend can be compared exactly with its records.
const budget = root.child({ name: `worker-${settings.index}` });
let granted = 0;
let ended = 0;
const counting = {
  async beforeAttempt(info: Parameters<typeof budget.beforeAttempt>[0]) {
    const handle = await budget.beforeAttempt(info);
    granted += 1;
    return {
      async end(outcome: Parameters<typeof handle.end>[0]) {
        await handle.end(outcome);
        ended += 1;
      },
    };
  },
};
const MODEL = 'primary-flash';
const adapter = new ChatAdapter(
  new OpenAITransport({
    apiKey: settings.apiKey,
    baseUrl: settings.baseUrl,
    maxAttempts: 3,
    retryBackoffSeconds: 0.01,
  }),
  {
    observers: [counting],
    endpoint: { cost: (usage) => costOf(priceOf(MODEL), usage) },
    // The emulator's default (reasoning on) makes calls dear enough that the limit stops the run.
    disableThinking: false,
  },
);

let settledNanoUsd = 0;
let records = 0;
let refusals = 0;
let failures = 0;
let refusalMessage: string | null = null;
let next = 0;

async function lane(): Promise<void> {
  while (next < settings.calls) {
    const number = next++;
    try {
      const response = await adapter.complete({
        model: MODEL,
        messages: [
          { role: 'system', content: 'You review build logs and answer in one sentence.' },
          {
            role: 'user',
            content: `Worker ${settings.index}, call ${number}: why did step ${number % 7} fail?`,
          },
        ],
        maxTokens: settings.maxTokens,
        timeoutSeconds: 30,
      });
      records += 1;
      settledNanoUsd += Math.round((response.costUsd ?? 0) * 1_000_000_000);
    } catch (error) {
      if ((error as { reason?: string }).reason === 'spend') {
        refusals += 1;
        refusalMessage ??= (error as Error).message;
      } else {
        failures += 1;
      }
    }
    process.send?.({ type: 'progress', settled: records, leases: granted - ended } satisfies WorkerReport);
  }
}

await Promise.all(Array.from({ length: settings.concurrency }, () => lane()));
// The adapter does not wait for a settlement before it answers: let the last ones end before closing.
for (const started = Date.now(); ended < granted && Date.now() < started + 30_000; ) {
  await new Promise((resolve) => setTimeout(resolve, 10));
}
budget.close();
await store.close();
process.send?.(
  {
    type: 'done',
    settledNanoUsd,
    records,
    refusals,
    failures,
    granted,
    ended,
    refusalMessage,
  } satisfies WorkerReport,
  () => process.disconnect(),
);
