import type { AttemptHandle, AttemptOutcome, CallRecord } from '@switchboard/adapter';
import { costOf } from '@switchboard/prices';
import type { BudgetStore, Settlement } from './budget-store.js';
import { MAX_CALL_NANO_USD, settleNanoUsd, usdOf } from './nano-usd.js';
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
}

/**
 * The handle of one granted attempt: its `end` settles the lease once — at the
 * record's cost, at the worst case (unsettled) when the cost is unknown, or
 * released (0) when the attempt provably never reached the provider.
 */
export class LeaseHandle implements AttemptHandle {
  readonly #shared: Shared;
  readonly #lease: Lease;
  #ended = false;

  constructor(shared: Shared, lease: Lease) {
    this.#shared = shared;
    this.#lease = lease;
  }

  /** Settles or releases the lease, in order with the budget's other settlements. Never throws; later calls do nothing. */
  end(outcome: AttemptOutcome): void | Promise<void> {
    if (this.#ended) return;
    this.#ended = true;
    const { leaseId, store, scopes, amount, writeBack } = this.#lease;
    const settlement = this.#settlementOf(outcome);
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
        settlement,
        done: () => this.#shared.fallbackLeaseEnded(`${leaseId}:fallback`),
      });
    }
    return this.#shared.settle(store, {
      leaseId,
      scopes,
      settlement,
      done: (held) => this.#settled(held, settlement),
    });
  }

  #settlementOf(outcome: AttemptOutcome): Settlement {
    const record = outcome?.record ?? null;
    if (record !== null) {
      const known = this.#costOf(record);
      return known === null
        ? { actualNanoUsd: this.#lease.amount, unsettled: true }
        : { actualNanoUsd: known };
    }
    return mayHaveBeenBilled(outcome)
      ? { actualNanoUsd: this.#lease.amount, unsettled: true }
      : { actualNanoUsd: 0 };
  }

  /**
   * The record's cost; without one, its usage at the maximum prices; null when
   * neither is known (no usage, e.g. a stream cut before its usage arrived) or
   * the cost is only an estimate.
   */
  #costOf(record: CallRecord): number | null {
    if ((record.priceSource as string | null) === 'estimate') return null;
    let usd: number | null = null;
    if (typeof record.costUsd === 'number' && Number.isFinite(record.costUsd)) usd = record.costUsd;
    else usd = costOf(this.#shared.pricing.maxPricesOf(record.model), record.usage);
    if (usd === null) return null;
    const nano = settleNanoUsd(Math.max(0, usd));
    if (nano <= MAX_CALL_NANO_USD) return nano;
    this.#shared.onWarning(
      `a call of ${record.model} reported a cost of ${usd} USD, beyond what a budget counts exactly; ${usdOf(MAX_CALL_NANO_USD)} USD is counted`,
    );
    return MAX_CALL_NANO_USD;
  }

  #settled(held: boolean, settlement: Settlement): void {
    if (!held) {
      this.#shared.onWarning(
        settlement.unsettled === true
          ? 'a budget lease had expired before its call ended; it stays counted at its worst case'
          : 'a budget lease had expired before its call ended; the worst case counted for it was replaced by its cost',
      );
    }
    this.#shared.heartbeat.delete(this.#lease.leaseId);
    // The freed slot may be in a scope that waiters of any chain share.
    for (const queue of this.#shared.queues.values()) queue.slotFreed();
  }
}

/**
 * Whether a failed attempt may have been billed: as the adapter says, or, from an
 * older adapter, guessed from the error (a budget refusal or an HTTP error status
 * was not billed; anything else may have been).
 */
function mayHaveBeenBilled(outcome: AttemptOutcome): boolean {
  const told = (outcome as { mayHaveBeenBilled?: unknown } | null)?.mayHaveBeenBilled;
  if (typeof told === 'boolean') return told;
  const error = outcome?.error as { kind?: unknown; status?: unknown } | null | undefined;
  if (error?.kind === 'budget') return false;
  return !(typeof error?.status === 'number' && error.status >= 400);
}
