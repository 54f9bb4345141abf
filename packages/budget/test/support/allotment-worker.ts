// One worker process of the allotments fleet test: a budget on Redis or PostgreSQL with `allotments` on, its calls
// through a ChatAdapter over OpenAITransport to the emulator, `lanes` at a time, each lane calling until
// the budget refuses it for spend (the budget spent to its end). A victim (`holdAfterGrants`) holds its
// calls from that grant on, reports `holding` and waits to be killed. Run with `node --import tsx`.
import { type CallObserver, ChatAdapter, OpenAITransport } from '@switchboard/adapter';
import { costOf, priceOf } from '@switchboard/prices';
import { createBudget } from '../../src/budget.js';
import { PostgresBudgetStore } from '../../src/postgres-store.js';
import { RedisBudgetStore } from '../../src/redis-store.js';

export interface AllotmentWorkerSettings {
  readonly index: number;
  /** The shared store: redis-server (keys under `allot:`) or PostgreSQL (schema `allot`). */
  readonly store: { readonly kind: 'redis' | 'postgres'; readonly url: string };
  readonly baseUrl: string;
  readonly apiKey: string;
  readonly root: { readonly name: string; readonly limitUsd: number };
  readonly lanes: number;
  readonly maxTokens: number;
  readonly leaseTtlMs: number;
  readonly holdAfterGrants: number | null;
}

export type AllotmentWorkerReport =
  | { readonly type: 'ready' }
  | { readonly type: 'holding'; readonly granted: number }
  /** Its lanes ended (each refused for spend, or out of calls): it closes its budget next. */
  | { readonly type: 'closing'; readonly calls: number; readonly records: number }
  /** Asked for (`status`): where it is, for a test that hangs to say. */
  | {
      readonly type: 'status';
      readonly phase: string;
      readonly calls: number;
      readonly records: number;
      /** Lanes waiting for the budget's grant, and lanes in a call past it. */
      readonly awaitingGrant: number;
      readonly inCall: number;
    }
  | {
      readonly type: 'done';
      readonly records: number;
      /** Its records' costs, in nano-dollars as the budget settles them. */
      readonly recordsNanoUsd: number;
      readonly refusals: Readonly<Record<string, number>>;
      readonly failures: number;
      /** The first few failures' messages, for a test that fails to say what they were. */
      readonly failed: readonly string[];
      readonly flushed: boolean;
      /** The threshold events this process fired: `<scope> <fraction>`. */
      readonly thresholds: readonly string[];
    };

const ALLOTMENT_MODEL = 'primary-flash';
const MAX_CALLS = 20_000;
const settings = JSON.parse(process.argv[2] ?? '{}') as AllotmentWorkerSettings;
const send = (report: AllotmentWorkerReport) => process.send?.(report);
const store =
  settings.store.kind === 'redis'
    ? new RedisBudgetStore({ url: settings.store.url, prefix: 'allot:', commandTimeoutMs: 15_000 })
    : new PostgresBudgetStore({ url: settings.store.url, schema: 'allot' });
const budget = createBudget({
  store,
  ownsStore: true,
  scope: settings.root,
  allotments: true,
  leaseTtlMs: settings.leaseTtlMs,
  onThreshold: (event) => thresholds.push(`${event.scope} ${event.fraction}`),
  // A handful a run at most: printed, so a run that fails says what the budget saw.
  onWarning: (message) => process.stderr.write(`allotment worker ${settings.index}: ${message}\n`),
}).child({ name: `worker-${settings.index}` });

let granted = 0;
const thresholds: string[] = [];
let awaitingGrant = 0;
let lanesInCall = 0;
let phase = 'waiting for go';
const holding: CallObserver = {
  async beforeAttempt(info) {
    awaitingGrant += 1;
    const handle = await Promise.resolve(budget.beforeAttempt(info)).finally(() => {
      awaitingGrant -= 1;
    });
    granted += 1;
    if (settings.holdAfterGrants !== null && granted >= settings.holdAfterGrants) {
      // Never ended: the share it came from stays held (renewed) while the process lives. A timer keeps it
      // alive until it is killed: with every lane held here, nothing else may (the heartbeat's timer and the
      // pool's idle connections do not hold a process open), and it would exit on its own.
      if (granted === settings.holdAfterGrants) setInterval(() => {}, 60_000);
      send({ type: 'holding', granted });
      await new Promise<never>(() => {});
    }
    return handle;
  },
};
const adapter = new ChatAdapter(new OpenAITransport({ apiKey: settings.apiKey, baseUrl: settings.baseUrl }), {
  observers: [holding],
  endpoint: { cost: (usage: unknown) => costOf(priceOf(ALLOTMENT_MODEL), usage) },
});

let calls = 0;
let records = 0;
let recordsNanoUsd = 0;
let failures = 0;
const failed: string[] = [];
const refusals: Record<string, number> = {};

/** Calls until the budget refuses a call for spend. */
async function lane(): Promise<void> {
  while (calls < MAX_CALLS) {
    calls += 1;
    lanesInCall += 1;
    try {
      const response = await adapter.complete({
        model: ALLOTMENT_MODEL,
        messages: [
          { role: 'user', content: `Worker ${settings.index}, call ${calls}: summarize the build.` },
        ],
        maxTokens: settings.maxTokens,
      });
      records += 1;
      recordsNanoUsd += Math.round((response.costUsd ?? 0) * 1e9);
    } catch (error) {
      const { kind, reason } = error as { kind?: string; reason?: string };
      if (kind !== 'budget' || reason === undefined) {
        failures += 1;
        if (failed.length < 3) failed.push(error instanceof Error ? error.message : String(error));
      } else refusals[reason] = (refusals[reason] ?? 0) + 1;
      if (reason === 'spend') return;
    } finally {
      lanesInCall -= 1;
    }
  }
}

async function run(): Promise<void> {
  phase = 'calling';
  await Promise.all(Array.from({ length: settings.lanes }, () => lane()));
  phase = 'closing its budget';
  send({ type: 'closing', calls, records });
  const flushed = await budget.close({ timeoutMs: 30_000 });
  phase = 'done';
  send({ type: 'done', records, recordsNanoUsd, refusals, failures, failed, flushed, thresholds });
  process.disconnect();
}

process.on('message', (message) => {
  if (message === 'go') void run();
  if (message === 'status') {
    const inCall = lanesInCall - awaitingGrant;
    send({ type: 'status', phase, calls, records, awaitingGrant, inCall });
  }
});
send({ type: 'ready' });
