import { costOf, priceOf } from '@switchboard/prices';
import type { CostModel } from '../../src/index.js';

/** The cost model a `ChatEndpoint` would be for `model`: the price table and the spec's cost rule. */
export function pricedAs(model: string): CostModel {
  const prices = priceOf(model);
  return { cost: (usage) => costOf(prices, usage) };
}

/** The exact sum of the cost model over entries, in ledger order (what costUsd() must equal). */
export function costSum(costModel: CostModel, entries: readonly Record<string, unknown>[]): number {
  let sum = 0;
  for (const entry of entries) sum += costModel.cost(entry) ?? 0;
  return sum;
}
