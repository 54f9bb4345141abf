import { PRUNE_BATCH } from './retention.js';

/**
 * A scope's calls counted at their worst case (their fate unknown): the totals,
 * and per lease id the amount counted and when, so a late settlement can replace
 * it by the cost. Entries are pruned once older than the store's retention; the
 * totals keep them, so pruning never lowers what the scope counts.
 */
export class UnsettledEntries {
  /** By lease id, in the order counted (a Map keeps insertion order): oldest first. */
  readonly #entries = new Map<string, { readonly amount: number; readonly at: number }>();
  /** No entry is older than this; a lower bound, so pruning is skipped while nothing can be due. */
  #oldest = Number.POSITIVE_INFINITY;
  /** Nano-dollars counted at a worst case, pruned entries included. */
  nanoUsd = 0;
  /** Calls counted at a worst case, pruned entries included. */
  calls = 0;

  /** Counts `amount` for `leaseId` as unsettled, at `now` (ms on the store's clock). */
  count(leaseId: string, amount: number, now: number): void {
    this.#entries.set(leaseId, { amount, at: now });
    this.#oldest = Math.min(this.#oldest, now);
    this.nanoUsd += amount;
    this.calls += 1;
  }

  /** Takes back the entry of `leaseId` (its settlement replaces it): its amount, or undefined when there is none. */
  take(leaseId: string): number | undefined {
    const entry = this.#entries.get(leaseId);
    if (entry === undefined) return undefined;
    this.#entries.delete(leaseId);
    this.nanoUsd -= entry.amount;
    this.calls -= 1;
    return entry.amount;
  }

  /** Forgets up to {@link PRUNE_BATCH} entries counted at or before `before`; their amount and call stay counted. */
  prune(before: number): void {
    if (before < this.#oldest) return;
    let pruned = 0;
    this.#oldest = Number.POSITIVE_INFINITY;
    for (const [leaseId, entry] of this.#entries) {
      if (entry.at > before || pruned === PRUNE_BATCH) {
        this.#oldest = entry.at;
        return;
      }
      this.#entries.delete(leaseId);
      pruned += 1;
    }
  }
}
