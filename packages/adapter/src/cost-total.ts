import { usdOfNano } from '@switchboard/prices';

/**
 * A running cost total shared by an adapter, its `forRole` views and its bounded
 * copies: a copy's total adds to every ancestor's, so each stays O(1) to read.
 * Counted in whole nano-dollars, so the sum is exact whatever the order.
 */
export class CostTotal {
  readonly #parent: CostTotal | null;
  #nanoUsd = 0;

  constructor(parent: CostTotal | null = null) {
    this.#parent = parent;
  }

  /** Adds one call's cost, in whole nano-dollars, here and to every ancestor. */
  add(costNanoUsd: number): void {
    for (let total: CostTotal | null = this; total !== null; total = total.#parent) {
      total.#nanoUsd += costNanoUsd;
    }
  }

  /** The exact sum so far, in nano-dollars. */
  get nanoUsd(): number {
    return this.#nanoUsd;
  }

  /** The sum so far in USD: the nearest number to the exact decimal. */
  get usd(): number {
    return usdOfNano(this.#nanoUsd);
  }
}
