import type { AttemptHandle, AttemptOutcome, CallRecord } from '@switchboard/adapter';
import type { Shared } from './budget.js';
import type { BudgetStore } from './budget-store.js';
import { usdOf } from './nano-usd.js';
import type { StoredScope } from './scope-limits.js';

const SETTLE_RETRY_MS = [50, 250, 1000];

/**
 * The handle of one granted attempt: its `end` settles the lease with the record's
 * cost, or releases it, once. A class rather than closures, as one is made per attempt.
 */
export class LeaseHandle implements AttemptHandle {
  readonly #shared: Shared;
  readonly #leaseId: string;
  readonly #store: BudgetStore;
  readonly #scopes: readonly StoredScope[];
  readonly #amount: number;
  readonly #costOf: (record: CallRecord) => number;
  #ended = false;

  constructor(
    shared: Shared,
    leaseId: string,
    store: BudgetStore,
    scopes: readonly StoredScope[],
    amount: number,
    costOf: (record: CallRecord) => number,
  ) {
    this.#shared = shared;
    this.#leaseId = leaseId;
    this.#store = store;
    this.#scopes = scopes;
    this.#amount = amount;
    this.#costOf = costOf;
  }

  /** Settles with `outcome.record`'s cost, or releases when there is no record. Never throws; later calls do nothing. */
  end(outcome: AttemptOutcome): void | Promise<void> {
    if (this.#ended) return;
    this.#ended = true;
    const actual = outcome?.record ? this.#costOf(outcome.record) : 0;
    if (actual > this.#amount) {
      this.#shared.onWarning(
        `a call cost ${usdOf(actual)} USD, more than its worst case of ${usdOf(this.#amount)} USD`,
      );
    }
    // The in-memory store answers at once: settle without a promise on that path.
    try {
      const held = this.#store.settle(this.#leaseId, this.#scopes, actual);
      if (typeof held === 'boolean') return this.#settled(held);
      return held.then(
        (answer) => this.#settled(answer),
        () => this.#retry(actual),
      );
    } catch {
      return this.#retry(actual);
    }
  }

  async #retry(actual: number): Promise<void> {
    for (const delay of SETTLE_RETRY_MS) {
      await new Promise((resolve) => setTimeout(resolve, delay));
      try {
        return this.#settled(await this.#store.settle(this.#leaseId, this.#scopes, actual));
      } catch (error) {
        if (delay === SETTLE_RETRY_MS.at(-1)) {
          this.#shared.onWarning(
            `a budget settlement failed (${error instanceof Error ? error.message : String(error)}); its reservation returns when the lease expires, its cost of ${usdOf(actual)} USD is not recorded`,
          );
        }
      }
    }
    this.#finish();
  }

  #settled(held: boolean): void {
    if (!held) {
      this.#shared.onWarning('a budget lease had expired before its call ended; its cost was added anyway');
    }
    this.#finish();
  }

  #finish(): void {
    this.#shared.heartbeat.delete(this.#leaseId);
    // The freed slot may be in a scope that waiters of any chain share.
    for (const queue of this.#shared.queues.values()) queue.slotFreed();
  }
}
