/**
 * A running cost total shared by an adapter, its `forRole` views and its bounded
 * copies: a copy's total adds to every ancestor's, so each stays O(1) to read.
 */
export class CostTotal {
  readonly #parent: CostTotal | null;
  #value = 0;

  constructor(parent: CostTotal | null = null) {
    this.#parent = parent;
  }

  /** Adds one call's cost here and to every ancestor. */
  add(costUsd: number): void {
    for (let total: CostTotal | null = this; total !== null; total = total.#parent) total.#value += costUsd;
  }

  /** The sum so far. */
  get value(): number {
    return this.#value;
  }
}
