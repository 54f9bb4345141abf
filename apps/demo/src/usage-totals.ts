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

/** Adds up usage entries with the cost rule's token counts and the given per-entry cost. */
export function usageTotals(
  entries: readonly unknown[],
  costOfEntry: (usage: unknown) => number | null,
): UsageTotals {
  let cacheHit = 0;
  let cacheMiss = 0;
  let output = 0;
  let usd = 0;
  for (const entry of entries) {
    const tokens = tokensOf(entry);
    if (tokens === null) continue;
    cacheHit += tokens.cacheHit;
    cacheMiss += tokens.input;
    output += tokens.output;
    usd += costOfEntry(entry) ?? 0;
  }
  return { calls: entries.length, cacheHit, cacheMiss, output, usd };
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
