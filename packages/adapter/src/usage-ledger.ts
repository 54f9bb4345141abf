import { usdOfNano } from '@switchboard/prices';
import type { UsageEntry } from './usage-entry.js';

const refuse = (): boolean => false;

// Every write is refused: in strict code `push`, `splice` and `length = 0` throw a
// TypeError, in sloppy code they do nothing. Reads go straight to the ledger.
const readOnly: ProxyHandler<UsageEntry[]> = {
  set: refuse,
  defineProperty: refuse,
  deleteProperty: refuse,
  setPrototypeOf: refuse,
  preventExtensions: refuse,
};

/**
 * An adapter's usage entries and the running total of their costs (integer
 * nano-dollars, so the sum is exact). `view` is a
 * read-only window on the entries: O(1) to get, never a copy, always current.
 */
export class UsageLedger {
  readonly #entries: UsageEntry[] = [];
  /** What callers see as `adapter.usage`. */
  readonly view: readonly UsageEntry[] = new Proxy(this.#entries, readOnly);
  #costNanoUsd = 0;

  /** Adds one frozen entry. */
  add(entry: UsageEntry): void {
    this.#entries.push(entry);
  }

  /** Adds one call's cost in whole nano-dollars (already checked: a safe integer >= 0). */
  addCost(costNanoUsd: number): void {
    this.#costNanoUsd += costNanoUsd;
  }

  /** The exact sum of the recorded costs, in nano-dollars. */
  get costNanoUsd(): number {
    return this.#costNanoUsd;
  }

  /** The sum of the recorded costs in USD: the nearest number to the exact decimal. */
  get costUsd(): number {
    return usdOfNano(this.#costNanoUsd);
  }
}
