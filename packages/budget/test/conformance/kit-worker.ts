// One worker process of the conformance kit: makes a store from a spec (a module,
// an export, constructor options), runs `calls` acquisitions on one chain,
// `concurrency` at a time, settles each granted lease at a random cost up to its
// reservation, and reports what it settled; or (`hold`) takes leases, reports them and
// waits to be killed holding them. Run with `node --import tsx`.
import type { BudgetStore } from '../../src/budget-store.js';
import type { StoredScope } from '../../src/scope-limits.js';

/** The worker's settings, as JSON in argv[2]. */
export interface KitWorkerSettings {
  readonly index: number;
  readonly store: {
    readonly module: string;
    readonly exportName: string;
    readonly options: Record<string, unknown>;
  };
  readonly scopes: readonly StoredScope[];
  readonly calls: number;
  readonly concurrency: number;
  readonly maxAmount: number;
  /**
   * Instead of calls: take this many leases of `maxAmount` each (with `holdTtlMs`), report
   * `{ held: [lease ids] }` and wait, holding them, to be killed.
   */
  readonly hold?: number;
  readonly holdTtlMs?: number;
}

/** What a worker reports when done. */
export interface KitWorkerReport {
  readonly settledNanoUsd: number;
  readonly granted: number;
  readonly refused: Readonly<Record<string, number>>;
  readonly errors: number;
}

const settings = JSON.parse(process.argv[2] ?? '{}') as KitWorkerSettings;
const exported = (await import(settings.store.module)) as Record<
  string,
  new (
    options: unknown,
  ) => BudgetStore
>;
const Store = exported[settings.store.exportName];
if (Store === undefined) throw new Error(`${settings.store.module} exports no ${settings.store.exportName}`);
const store = new Store(settings.store.options);

if (settings.hold !== undefined) {
  const held: string[] = [];
  for (let index = 0; index < settings.hold; index++) {
    const leaseId = `held-${settings.index}-${index}-${process.pid}`;
    const result = await store.acquire({
      leaseId,
      scopes: settings.scopes,
      amountNanoUsd: settings.maxAmount,
      ttlMs: settings.holdTtlMs ?? 30_000,
    });
    if (result.granted) held.push(leaseId);
  }
  process.send?.({ held });
  // Held until the parent kills this process (SIGKILL): nothing is released or settled.
  setInterval(() => {}, 60_000);
  await new Promise(() => {});
}

let next = 0;
let settledNanoUsd = 0;
let granted = 0;
let errors = 0;
const refused: Record<string, number> = {};

async function lane(): Promise<void> {
  while (next < settings.calls) {
    const number = next++;
    let leaseId = `w${settings.index}-${number}-${process.pid}`;
    const amount = 1 + Math.floor(Math.random() * settings.maxAmount);
    try {
      let result = await store.acquire({
        leaseId,
        scopes: settings.scopes,
        amountNanoUsd: amount,
        ttlMs: 30_000,
      });
      // No slot free: the same call is made again (a new lease id) once one may be, as the budget's
      // wait would, so every call ends granted or refused for spend however slow the machine
      // (refusals for slots alone could use the calls up before the limit is reached).
      for (let again = 1; !result.granted && result.reason === 'in_flight'; again++) {
        refused.in_flight = (refused.in_flight ?? 0) + 1;
        await new Promise((resolve) => setTimeout(resolve, 1 + Math.random() * 4));
        result = await store.acquire({
          leaseId: `${leaseId}-${again}`,
          scopes: settings.scopes,
          amountNanoUsd: amount,
          ttlMs: 30_000,
        });
        if (result.granted) leaseId = `${leaseId}-${again}`;
      }
      if (!result.granted) {
        refused[result.reason] = (refused[result.reason] ?? 0) + 1;
        continue;
      }
      granted += 1;
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 5));
      const cost = Math.floor(Math.random() * (amount + 1));
      await store.settle(leaseId, settings.scopes, { actualNanoUsd: cost });
      settledNanoUsd += cost;
    } catch {
      errors += 1;
    }
  }
}

await new Promise<void>((resolve) => {
  process.once('message', () => resolve());
  process.send?.('ready');
});
await Promise.all(Array.from({ length: settings.concurrency }, () => lane()));
await store.close?.();
process.send?.({ settledNanoUsd, granted, refused, errors } satisfies KitWorkerReport, () =>
  process.disconnect(),
);
