// One worker process of the fleet test: a budget with a root, tenants (daily, or never resetting) and
// thresholds, on a store of its own (PostgreSQL, redis-server or a Redis Cluster). The parent drives it over IPC: `spend` (calls of random tenants and
// costs, `lanes` at a time), `hold` (leases kept open), `release` (the held leases settled), `exit`.
// It reports what it settled per scope path, and every threshold event it fired. Run with `node --import tsx`.
import type { AttemptHandle } from '@switchboard/adapter';
import { Cluster } from 'ioredis';
import { createBudget } from '../../src/budget.js';
import { BudgetError } from '../../src/budget-error.js';
import type { BudgetStore } from '../../src/budget-store.js';
import { PostgresBudgetStore } from '../../src/postgres-store.js';
import { RedisBudgetStore } from '../../src/redis-store.js';
import { attemptInfo, callRecord } from './attempt-info.js';

/** The worker's settings, as JSON in argv[2]. */
export interface FleetWorkerSettings {
  readonly index: number;
  readonly store:
    | { readonly kind: 'postgres' | 'redis'; readonly url: string }
    | { readonly kind: 'cluster'; readonly nodes: readonly { host: string; port: number }[] };
  /** The root's and tenants' window, or null: they never reset. */
  readonly window: 'day' | null;
  readonly rootLimitUsd: number;
  readonly tenantLimitUsd: number;
  readonly tenants: readonly string[];
  readonly leaseTtlMs: number;
}

/** From the parent. */
export type FleetCommand =
  | { readonly cmd: 'spend'; readonly calls: number; readonly lanes: number }
  | { readonly cmd: 'hold'; readonly count: number; readonly tenant: string }
  | { readonly cmd: 'release'; readonly costUsd: number }
  | { readonly cmd: 'exit' };

/** To the parent: settled nano-dollars per scope path, refusals by reason, threshold events. */
export type FleetReport =
  | { readonly type: 'ready' }
  | {
      readonly type: 'spent';
      readonly settled: Record<string, number>;
      readonly refusals: Record<string, number>;
      /** The words of refusals other than 'spend' and 'reserved' (at most 5), to tell why one happened. */
      readonly unexpected: string[];
    }
  | { readonly type: 'holding'; readonly held: number }
  | { readonly type: 'released'; readonly settled: Record<string, number> }
  | {
      readonly type: 'threshold';
      readonly scope: string;
      readonly fraction: number;
      readonly window: string | null;
    }
  | { readonly type: 'error'; readonly message: string };

const settings = JSON.parse(process.argv[2] ?? '{}') as FleetWorkerSettings;
const send = (report: FleetReport) => process.send?.(report);
// A worst case of $0.001 per output token: a call of 50 tokens may cost up to $0.05.
const PRICES = { cacheHitPerM: 0, inputPerM: 0, outputPerM: 1000 };
const spec = settings.store;
function storeOf(): BudgetStore {
  if (spec.kind === 'cluster') return new RedisBudgetStore({ client: new Cluster([...spec.nodes]) });
  return spec.kind === 'postgres'
    ? new PostgresBudgetStore({ url: spec.url })
    : new RedisBudgetStore({ url: spec.url });
}
const store = storeOf();
const window = settings.window === null ? {} : { window: settings.window };
const budget = createBudget({
  store,
  scope: { name: 'fleet', limitUsd: settings.rootLimitUsd, ...window },
  tenants: { limitUsd: settings.tenantLimitUsd, ...window },
  thresholds: [0.5, 0.8, 1],
  onThreshold: (event) =>
    send({
      type: 'threshold',
      scope: event.scope,
      fraction: event.fraction,
      window: event.window?.start ?? null,
    }),
  maxPricesOf: () => PRICES,
  leaseTtlMs: settings.leaseTtlMs,
  slotWaitMs: 500,
  onWarning: (message) => {
    if (process.env.BUDGET_WORKER_VERBOSE === '1')
      process.stderr.write(`fleet worker ${settings.index}: ${message}\n`);
  },
});

function add(into: Record<string, number>, handle: AttemptHandle, nanoUsd: number): void {
  for (const { scope } of handle.budgets ?? []) into[scope] = (into[scope] ?? 0) + nanoUsd;
}

async function spend(calls: number, lanes: number): Promise<void> {
  const settled: Record<string, number> = {};
  const refusals: Record<string, number> = {};
  const unexpected: string[] = [];
  let next = 0;
  const lane = async () => {
    while (next < calls) {
      next += 1;
      const tenant = settings.tenants[Math.floor(Math.random() * settings.tenants.length)] as string;
      const maxTokens = 10 + Math.floor(Math.random() * 41);
      let handle: AttemptHandle;
      try {
        handle = await budget.beforeAttempt(attemptInfo({ maxTokens, tenant }));
      } catch (error) {
        const reason = error instanceof BudgetError ? error.reason : 'other';
        refusals[reason] = (refusals[reason] ?? 0) + 1;
        if (reason !== 'spend' && reason !== 'reserved' && unexpected.length < 5) {
          unexpected.push(`${reason}: ${error instanceof Error ? error.message : String(error)}`);
        }
        if (!(error instanceof BudgetError)) send({ type: 'error', message: String(error) });
        continue;
      }
      // A whole number of micro-dollars, up to the worst case: the books compare exactly.
      const costNano = Math.floor(Math.random() * maxTokens * 1000) * 1000;
      await handle.end({ record: callRecord(costNano / 1e9), error: null, mayHaveBeenBilled: true });
      add(settled, handle, costNano);
    }
  };
  await Promise.all(Array.from({ length: lanes }, lane));
  await budget.idle();
  send({ type: 'spent', settled, refusals, unexpected });
}

const held: AttemptHandle[] = [];

process.on('message', (message: FleetCommand) => {
  const run = async () => {
    if (message.cmd === 'spend') await spend(message.calls, message.lanes);
    else if (message.cmd === 'hold') {
      for (let index = 0; index < message.count; index += 1) {
        held.push(await budget.beforeAttempt(attemptInfo({ maxTokens: 10, tenant: message.tenant })));
      }
      send({ type: 'holding', held: held.length });
    } else if (message.cmd === 'release') {
      const settled: Record<string, number> = {};
      for (const handle of held.splice(0)) {
        await handle.end({ record: callRecord(message.costUsd), error: null, mayHaveBeenBilled: true });
        add(settled, handle, Math.round(message.costUsd * 1e9));
      }
      await budget.idle();
      send({ type: 'released', settled });
    } else {
      await budget.close();
      await store.close?.();
      process.exit(0);
    }
  };
  run().catch((error: unknown) => send({ type: 'error', message: String(error) }));
});
send({ type: 'ready' });
