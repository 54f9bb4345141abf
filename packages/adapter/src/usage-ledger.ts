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
 * An adapter's usage entries and the running total of their costs. `view` is a
 * read-only window on the entries: O(1) to get, never a copy, always current.
 */
export class UsageLedger {
  readonly #entries: UsageEntry[] = [];
  /** What callers see as `adapter.usage`. */
  readonly view: readonly UsageEntry[] = new Proxy(this.#entries, readOnly);
  #costUsd = 0;

  /** Adds one frozen entry. */
  add(entry: UsageEntry): void {
    this.#entries.push(entry);
  }

  /** Adds one call's cost (already checked: a finite number >= 0). */
  addCost(costUsd: number): void {
    this.#costUsd += costUsd;
  }

  /** The sum of the recorded costs. */
  get costUsd(): number {
    return this.#costUsd;
  }
}
