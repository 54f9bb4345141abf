import type { AttemptHandle, AttemptOutcome, ChargedScope } from '@switchboard/adapter';
import { settlementOf } from './attempt-settlement.js';
import type { BudgetStore, Settlement } from './budget-store.js';
import { usdOf } from './nano-usd.js';
import type { StoredScope } from './scope-limits.js';
import type { Shared } from './shared.js';

/** One granted lease: where it was taken and what it holds. */
export interface Lease {
  readonly leaseId: string;
  readonly store: BudgetStore;
  readonly scopes: readonly StoredScope[];
  /** The worst case reserved, in nano-dollars. */
  readonly amount: number;
  /** For a fallback lease: the chain's scopes in the budget's own store, where its spend is written back. */
  readonly writeBack: readonly StoredScope[] | null;
  /** The scopes' paths, root first (`svc`, `svc/acme`): what threshold events name. */
  readonly paths: readonly string[];
}

/**
 * The handle of one granted attempt: its `end` settles the lease once — at the
 * record's cost, at the worst case (unsettled) when the cost is unknown, or
 * released (0) when the attempt provably never reached the provider.
 */
export class LeaseHandle implements AttemptHandle {
  /** The lower cap the attempt was fitted to (`fitMaxTokens`); absent when it was not. */
  readonly maxTokens?: number;
  /** The scopes the attempt was charged to, root first, with their limits. */
  readonly budgets: readonly ChargedScope[];
  readonly #shared: Shared;
  readonly #lease: Lease;
  #ended = false;

  constructor(
    shared: Shared,
    lease: Lease,
    attempt: { maxTokens: number | null; budgets: readonly ChargedScope[] },
  ) {
    this.#shared = shared;
    this.#lease = lease;
    if (attempt.maxTokens !== null) this.maxTokens = attempt.maxTokens;
    this.budgets = attempt.budgets;
  }

  /** Settles or releases the lease, in order with the budget's other settlements. Never throws; later calls do nothing. */
  end(outcome: AttemptOutcome): void | Promise<void> {
    if (this.#ended) return;
    this.#ended = true;
    const { leaseId, store, scopes, amount, writeBack } = this.#lease;
    // Granted by this store: once its worst case is pruned, a late settlement leaves it so.
    const settlement = settlementOf(outcome, amount, this.#shared, true);
    if (settlement.actualNanoUsd > amount && settlement.unsettled !== true) {
      this.#shared.onWarning(
        `a call cost ${usdOf(settlement.actualNanoUsd)} USD, more than its worst case of ${usdOf(amount)} USD`,
      );
    }
    if (writeBack !== null) {
      // Its own id: the lease id itself was released in the store when the acquisition failed.
      void this.#shared.settle(this.#shared.store, {
        leaseId: `${leaseId}:fallback`,
        scopes: writeBack,
        settlement:
          settlement.unsettled === true
            ? { actualNanoUsd: settlement.actualNanoUsd, unsettled: true }
            : { actualNanoUsd: settlement.actualNanoUsd },
        done: () => this.#shared.fallbackLeaseEnded(`${leaseId}:fallback`),
      });
    }
    let thresholds: Promise<void> | null = null;
    // Spend grew: the store says which thresholds it reached first (a fallback's spend, once written back),
    // in the settlement's own round trip where it can (settleAndMark), else just after it.
    const spends = settlement.actualNanoUsd > 0 && store === this.#shared.store;
    const levels = spends ? this.#shared.thresholds.levelsFor(store, scopes) : null;
    const settled = this.#shared.settle(store, {
      leaseId,
      scopes,
      settlement,
      ...(levels === null
        ? {}
        : { levels, marked: (marks) => this.#shared.thresholds.fire(marks, scopes, this.#lease.paths) }),
      done: (held) => {
        this.#settled(held, settlement);
        if (spends && levels === null) {
          thresholds = this.#shared.thresholds.check(store, scopes, this.#lease.paths) ?? null;
        }
      },
    });
    // Without thresholds watched, the settlement's own promise: nothing is checked after it.
    if (!spends || !this.#shared.thresholds.watched) return settled;
    if (settled instanceof Promise) return settled.then(() => thresholds ?? undefined);
    return thresholds ?? undefined;
  }

  #settled(held: boolean, settlement: Settlement): void {
    if (!held) {
      this.#shared.onWarning(
        settlement.unsettled === true
          ? 'a budget lease had expired before its call ended; it stays counted at its worst case'
          : 'a budget lease had expired before its call ended; the worst case counted for it was replaced by its cost (unless the store had pruned it after its retention: then it stays at the worst case)',
      );
    }
    this.#shared.heartbeat.delete(this.#lease.leaseId);
    // The freed slot may be in a scope that waiters of any chain share.
    const { queues } = this.#shared;
    if (queues.size > 0) for (const queue of queues.values()) queue.leaseEnded();
  }
}
