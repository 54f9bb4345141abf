import { formatNanoUsd } from '@switchboard/prices';
import { plural } from '../plural.js';
import type { JournalSources } from '../report/journal-sources.js';
import { compareLedger, type LedgerComparison } from '../report/ledger-check.js';
import { safeText } from '../terminal-text.js';

/** Each journal in PostgreSQL held against the budget's ledger in its database. */
export interface LedgerCheck {
  readonly journal: string;
  /** The comparison, or null when the database holds no ledger to compare with (`why`). */
  readonly comparison: LedgerComparison | null;
  readonly why?: string;
}

/** Compares each PostgreSQL journal with the budget's ledger beside it; a database without one is said, not failed. */
export async function ledgerChecks(sources: JournalSources): Promise<LedgerCheck[]> {
  const checks: LedgerCheck[] = [];
  for (const { url, budgetSchema, journal } of sources.postgres) {
    try {
      checks.push({ journal: journal.name, comparison: await compareLedger(url, budgetSchema, journal) });
    } catch (error) {
      checks.push({
        journal: journal.name,
        comparison: null,
        why: `no budget ledger read in schema "${budgetSchema}": ${error instanceof Error ? error.message : String(error)}`,
      });
    }
  }
  return checks;
}

/** How many ledgers differ from the journal, and scopes the ledger lacks, over all the checks. */
export function ledgerDifferences(checks: readonly LedgerCheck[]): number {
  return checks.reduce(
    (sum, check) =>
      sum +
      (check.comparison?.rows.filter((row) => row.ledgerNanoUsd !== row.journalNanoUsd).length ?? 0) +
      (check.comparison?.missing.length ?? 0),
    0,
  );
}

/** The checks in words: one line per ledger, then what differs. */
export function ledgerLines(checks: readonly LedgerCheck[]): string[] {
  const usd = (nano: number) => `$${formatNanoUsd(nano, { minDecimals: 2 })}`;
  const out: string[] = [];
  for (const check of checks) {
    if (check.comparison === null) {
      out.push(`${safeText(check.journal)}: the budget's ledger: ${safeText(check.why ?? '')}; not compared`);
      continue;
    }
    const { rows, missing } = check.comparison;
    for (const row of rows) {
      const window = row.window === null ? '' : ` (window ${row.window.start} .. ${row.window.end})`;
      const same = row.ledgerNanoUsd === row.journalNanoUsd;
      out.push(
        `${safeText(check.journal)}: budget scope ${JSON.stringify(safeText(row.scope))}${window}: settled ${usd(row.ledgerNanoUsd)} in the ledger, ${usd(row.journalNanoUsd)} in the journal: ${same ? 'equal' : `they differ by ${usd(Math.abs(row.ledgerNanoUsd - row.journalNanoUsd))}`}`,
      );
    }
    for (const scope of missing)
      out.push(
        `${safeText(check.journal)}: budget scope ${JSON.stringify(safeText(scope.scope))}: ${usd(scope.journalNanoUsd)} in the journal, not in the ledger`,
      );
    const differing = ledgerDifferences([check]);
    out.push(
      `${safeText(check.journal)}: ${plural(rows.length, 'ledger')} of the budget held against the journal: ${differing === 0 ? 'each equal, to the nano-dollar' : `${differing} differ`}`,
    );
  }
  return out;
}
