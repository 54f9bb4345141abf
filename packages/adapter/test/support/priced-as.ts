import { costOf, priceOf } from '@switchboard/prices';
import type { CostModel } from '../../src/index.js';

/** The cost model a `ChatEndpoint` would be for `model`: the price table and the spec's cost rule. */
export function pricedAs(model: string): CostModel {
  const prices = priceOf(model);
  return { cost: (usage) => costOf(prices, usage) };
}

/**
 * The exact sum of the cost model over entries, each cost rounded to the nearest
 * nano-dollar and added as an integer (what costUsd() must equal).
 */
export function costSum(costModel: CostModel, entries: readonly Record<string, unknown>[]): number {
  let nano = 0n;
  for (const entry of entries) {
    const cost = Math.round((costModel.cost(entry) ?? 0) * 1e9);
    // Past about 9 million USD a cost is no longer exact: the adapter records a costError and counts 0.
    if (Number.isSafeInteger(cost)) nano += BigInt(cost);
  }
  return Number(nano) / 1e9;
}
