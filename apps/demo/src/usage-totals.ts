import { tokensOf } from '@switchboard/prices';

/** Calls, billed tokens and USD over a list of usage entries. */
export interface UsageTotals {
  readonly calls: number;
  readonly cacheHit: number;
  readonly cacheMiss: number;
  readonly output: number;
  /** Sum of the per-entry costs; an entry with no cost counts 0. */
  readonly usd: number;
}

/** A running total of usage entries: calls, the cost rule's token counts, and USD in integer nano-dollars. */
export class UsageAccumulator {
  private calls = 0;
  private cacheHit = 0;
  private cacheMiss = 0;
  private output = 0;
  /** The USD so far, in integer nano-dollars (exact to add up across accumulators). */
  nanoUsd = 0;

  /** Counts one entry (its tokens when it has any) at `costUsd`. */
  add(usage: unknown, costUsd: number): void {
    const tokens = tokensOf(usage);
    this.calls += 1;
    if (tokens !== null) {
      this.cacheHit += tokens.cacheHit;
      this.cacheMiss += tokens.input;
      this.output += tokens.output;
    }
    this.nanoUsd += Math.round(costUsd * 1e9);
  }

  totals(): UsageTotals {
    const { calls, cacheHit, cacheMiss, output } = this;
    return { calls, cacheHit, cacheMiss, output, usd: this.nanoUsd / 1e9 };
  }
}

/** Adds up usage entries with the cost rule's token counts and the given per-entry cost. */
export function usageTotals(
  entries: readonly unknown[],
  costOfEntry: (usage: unknown) => number | null,
): UsageTotals {
  const totals = new UsageAccumulator();
  for (const entry of entries) totals.add(entry, tokensOf(entry) === null ? 0 : (costOfEntry(entry) ?? 0));
  return totals.totals();
}

/** The sum of several totals, row by row, as a table's total line shows it. */
export function sumTotals(rows: readonly UsageTotals[]): UsageTotals {
  return rows.reduce(
    (sum, row) => ({
      calls: sum.calls + row.calls,
      cacheHit: sum.cacheHit + row.cacheHit,
      cacheMiss: sum.cacheMiss + row.cacheMiss,
      output: sum.output + row.output,
      usd: sum.usd + row.usd,
    }),
    { calls: 0, cacheHit: 0, cacheMiss: 0, output: 0, usd: 0 },
  );
}
