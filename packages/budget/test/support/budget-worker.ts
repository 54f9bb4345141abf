// One worker process sharing a budget on Redis: `concurrency` calls at a time
// through a ChatAdapter over OpenAITransport, its budget an observer. Reports to
// the parent over IPC: a progress line whenever a lease is taken or a call ends,
// and a summary when done. Run with `node --import tsx`.
import { type CallObserver, ChatAdapter, OpenAITransport } from '@switchboard/adapter';
import { costOf, priceOf } from '@switchboard/prices';
import type { AcquireRequest, AcquireResult } from '../../src/acquire-request.js';
import { createBudget } from '../../src/budget.js';
import { MemoryBudgetStore } from '../../src/memory-store.js';
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
  readonly commandTimeoutMs: number;
  /** This worker's fallback share, or null for none. */
  readonly fallbackShare: number | null;
  /** Kill itself (SIGKILL) right after this many leases were granted, so it dies holding one; null: never. */
  readonly dieAfterGrants: number | null;
  /**
   * Once this many leases were granted, hold every lease granted from then on (its call never
   * goes on), report `holding` with the leases it holds, and wait to be killed; null: never.
   */
  readonly holdAfterGrants?: number | null;
  /**
   * A call refused as `store_unreachable` is made again (after the same pause) instead of being
   * given up, so the worker still has calls to make when the store is back, however long it was
   * away on a loaded machine; counted once per refusal all the same.
   */
  readonly retryUnreachable?: boolean;
  /**
   * Once this many leases were granted, start no further call until the parent sends `'resume'`
   * (calls already started go on), so the worker still has calls to make after a fault the parent
   * causes meanwhile, however fast or slow the machine; null or absent: never pause.
   */
  readonly pauseAfterGrants?: number | null;
}

/** What a worker reports. */
export type WorkerReport =
  /** Set up and waiting for the parent's `'go'`, so every worker starts calling at once. */
  | { readonly type: 'ready' }
  /** Holds `held` leases it will never end (see `holdAfterGrants`), and waits to be killed. */
  | { readonly type: 'holding'; readonly held: number }
  | {
      readonly type: 'progress';
      /** Leases granted so far, and held now (granted, not yet ended). */
      readonly granted: number;
      readonly held: number;
      readonly records: number;
    }
  | {
      readonly type: 'done';
      /** Sum of its call records' costs, in nano-dollars as the budget settles them. */
      readonly recordsNanoUsd: number;
      readonly records: number;
      /** Calls refused by the budget, by reason. */
      readonly refusals: Readonly<Record<string, number>>;
      /** Calls that failed otherwise, by error kind. */
      readonly failures: Readonly<Record<string, number>>;
      /** Attempts the budget let through, and attempt handles ended. */
      readonly granted: number;
      readonly ended: number;
      /** Whether `close()` saw every settlement recorded. */
      readonly flushed: boolean;
      /** Acquisitions that went to the fallback store while Redis was unreachable. */
      readonly fallbackUses: number;
      /**
       * The in-flight slots its fallback was given: per outage (a fallback scope of its own), the share of the
       * root's free slots as it last heard from Redis, summed over outages.
       */
      readonly fallbackSlots: number;
      /** The outages its fallback served (its fallback scopes). */
      readonly fallbackOutages: number;
      readonly refusalMessages: Readonly<Record<string, string>>;
    };

const MODEL = 'primary-flash';
const settings = JSON.parse(process.argv[2] ?? '{}') as WorkerSettings;
const verbose = process.env.BUDGET_WORKER_VERBOSE === '1';
let fallbackUses = 0;
const warn = (message: string) => {
  if (/using the fallback store$/.test(message)) fallbackUses += 1;
  if (verbose) process.stderr.write(`worker ${settings.index}: ${message}\n`);
};
const store = new RedisBudgetStore({
  url: settings.redisUrl,
  prefix: settings.prefix,
  commandTimeoutMs: settings.commandTimeoutMs,
  onWarning: warn,
});
/** The fallback store, noting the root's slot limit of each outage's scope (the root is a chain's first scope). */
class NotedFallback extends MemoryBudgetStore {
  readonly slots = new Map<string, number>();
  override acquire(request: AcquireRequest): AcquireResult {
    const [first] = request.scopes;
    if (first?.maxInFlight != null) this.slots.set(first.key, first.maxInFlight);
    return super.acquire(request);
  }
}
const fallbackStore = new NotedFallback();
const root = createBudget({
  store,
  scope: settings.root,
  leaseTtlMs: settings.leaseTtlMs,
  slotWaitMs: 60_000,
  ...(settings.fallbackShare === null
    ? {}
    : { fallback: { share: settings.fallbackShare, store: fallbackStore } }),
  onWarning: warn,
});
// Each worker also has a scope of its own, so its spend can be compared exactly with its records.
const budget = root.child({ name: `worker-${settings.index}` });

let granted = 0;
let ended = 0;
/** Leases held for good (holdAfterGrants). */
let parked = 0;
let records = 0;
let recordsNanoUsd = 0;
const refusals: Record<string, number> = {};
const failures: Record<string, number> = {};
const refusalMessages: Record<string, string> = {};
const report = () =>
  process.send?.({ type: 'progress', granted, held: granted - ended, records } satisfies WorkerReport);

const counting: CallObserver = {
  async beforeAttempt(info) {
    const handle = await budget.beforeAttempt(info);
    granted += 1;
    // Dies while this lease is held: nothing can settle it but its expiry.
    if (granted === settings.dieAfterGrants) process.kill(process.pid, 'SIGKILL');
    if (settings.holdAfterGrants != null && granted >= settings.holdAfterGrants) {
      // This lease is never ended: its call waits here for good, its lease renewed while the process lives.
      parked += 1;
      process.send?.({ type: 'holding', held: parked } satisfies WorkerReport);
      await new Promise<never>(() => {});
    }
    report();
    return {
      async end(outcome) {
        await handle.end(outcome);
        ended += 1;
      },
    };
  },
};
const transport = new OpenAITransport({
  apiKey: settings.apiKey,
  baseUrl: settings.baseUrl,
  maxAttempts: 2,
  retryBackoffSeconds: 0.01,
});
const adapter = new ChatAdapter(transport, {
  observers: [counting],
  endpoint: { cost: (usage: unknown) => costOf(priceOf(MODEL), usage) },
  // The emulator's default (reasoning on) makes calls dear enough that the limit stops the run.
  disableThinking: false,
});

/** Resolves once the parent sent `'resume'` (see `pauseAfterGrants`). */
const resumed = new Promise<void>((resolve) => {
  process.on('message', (message) => {
    if (message === 'resume') resolve();
  });
});

let next = 0;
async function lane(): Promise<void> {
  while (next < settings.calls) {
    if (settings.pauseAfterGrants != null && granted >= settings.pauseAfterGrants) await resumed;
    if (next >= settings.calls) break;
    const number = next++;
    await call(number);
    report();
  }
}

async function call(number: number): Promise<void> {
  for (;;) {
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
        timeoutSeconds: 10,
      });
      records += 1;
      recordsNanoUsd += Math.round((response.costUsd ?? 0) * 1_000_000_000);
      return;
    } catch (error) {
      const { kind, reason, message } = error as { kind?: string; reason?: string; message?: string };
      if (kind === 'budget' && reason !== undefined) {
        refusals[reason] = (refusals[reason] ?? 0) + 1;
        refusalMessages[reason] ??= message ?? '';
        // A refused call waits a little, as a pipeline would before its next item; longer when the store is away.
        await new Promise((resolve) => setTimeout(resolve, reason === 'store_unreachable' ? 250 : 20));
        if (reason === 'store_unreachable' && settings.retryUnreachable === true) continue;
      } else {
        failures[kind ?? 'other'] = (failures[kind ?? 'other'] ?? 0) + 1;
      }
      return;
    }
  }
}

// Warm up what a first call would load (the Redis connection and scripts, the HTTP client), so
// the workers' first calls start together even on a loaded machine.
await root.usage().catch(() => {});
await transport.listModels({ timeoutSeconds: 30 }).catch(() => {});
await new Promise<void>((resolve) => {
  process.once('message', () => resolve());
  process.send?.({ type: 'ready' } satisfies WorkerReport);
});
await Promise.all(Array.from({ length: settings.concurrency }, () => lane()));
const flushed = await root.close({ timeoutMs: 30_000 });
await store.close();
process.send?.(
  {
    type: 'done',
    recordsNanoUsd,
    records,
    refusals,
    failures,
    granted,
    ended,
    flushed,
    fallbackUses,
    fallbackSlots: [...fallbackStore.slots.values()].reduce((sum, slots) => sum + slots, 0),
    fallbackOutages: fallbackStore.slots.size,
    refusalMessages,
  } satisfies WorkerReport,
  () => process.disconnect(),
);
