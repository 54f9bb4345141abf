import { listBudgetScopes } from '@switchboard/budget';
import { type NamedJournal, scanJournal } from '@switchboard/telemetry';

/** One ledger (a scope, or one window of a windowed scope) beside the journal's settled spend for it. */
interface LedgerRow {
  readonly scope: string;
  /** The window (ISO instants), or null for a scope without one. */
  readonly window: { readonly start: string; readonly end: string } | null;
  /** Settled in the ledger: its spend less the unsettled worst cases, in nano-dollars. */
  readonly ledgerNanoUsd: number;
  /** What the journal's calls charged to the scope (and started in the window) cost, in nano-dollars. */
  readonly journalNanoUsd: number;
}

/** What {@link compareLedger} found: every ledger it read, and the scopes the journal charged that the ledger lacks. */
export interface LedgerComparison {
  readonly rows: readonly LedgerRow[];
  /** Scopes the journal's calls were charged to that the ledger has no figure for, with their spend. */
  readonly missing: readonly { readonly scope: string; readonly journalNanoUsd: number }[];
}

interface Ledger {
  readonly scope: string;
  readonly window: { readonly start: string; readonly end: string } | null;
  readonly startMs: number;
  readonly endMs: number;
  readonly ledgerNanoUsd: number;
  journalNanoUsd: number;
}

/** Most ledgers compared (scopes times windows kept): past it, the others are left out and said. */
const MAX_LEDGERS = 100_000;

/**
 * Holds a journal in PostgreSQL against the budget's ledger in the same database (`url`, the budget's
 * schema `schema`): each scope's settled spend in the ledger (each window the store keeps, for a
 * windowed scope) beside what the journal's calls charged to it cost (a call in a window by its start).
 */
export async function compareLedger(
  url: string,
  schema: string,
  journal: NamedJournal,
): Promise<LedgerComparison> {
  const ledgers = new Map<string, Ledger[]>();
  let count = 0;
  for await (const listing of listBudgetScopes({ url, schema })) {
    const windows: Ledger[] = [];
    const nano = (usd: number) => Math.round(usd * 1e9);
    for (const past of listing.past)
      windows.push(ledger(listing.scope, { start: past.start, end: past.end }, nano(past.spentUsd)));
    // A windowed scope with no call in its current window has no window now: only its past ones are compared.
    if (listing.window !== null || listing.past.length === 0)
      windows.push(
        ledger(listing.scope, listing.window, nano(listing.spentUsd) - nano(listing.unsettledUsd)),
      );
    count += windows.length;
    if (count > MAX_LEDGERS)
      throw new Error(`the ledger holds more than ${MAX_LEDGERS} scopes and windows to compare`);
    ledgers.set(listing.scope, windows);
  }
  const missing = new Map<string, number>();
  await scanJournal(journal.source, {
    name: journal.name,
    onIssue: () => undefined,
    onLine: (checked) => {
      if (checked.costNanoUsd === null) return;
      const budgets = (checked.line as { budgets?: unknown }).budgets;
      if (!Array.isArray(budgets)) return;
      for (const entry of budgets.slice(0, 16)) {
        const scope = (entry as { scope?: unknown } | null)?.scope;
        if (typeof scope !== 'string') continue;
        const windows = ledgers.get(scope);
        const found = windows?.find((one) => checked.at >= one.startMs && checked.at < one.endMs);
        if (found !== undefined) found.journalNanoUsd += checked.costNanoUsd;
        // A call outside every window the ledger still keeps (pruned after 35 days) is not compared.
        else if (windows === undefined) missing.set(scope, (missing.get(scope) ?? 0) + checked.costNanoUsd);
      }
    },
  });
  const rows = [...ledgers.values()]
    .flat()
    .filter((one) => one.window === null || one.ledgerNanoUsd !== 0 || one.journalNanoUsd !== 0)
    .map(({ scope, window, ledgerNanoUsd, journalNanoUsd }) => ({
      scope,
      window,
      ledgerNanoUsd,
      journalNanoUsd,
    }));
  return { rows, missing: [...missing].map(([scope, journalNanoUsd]) => ({ scope, journalNanoUsd })) };
}

function ledger(
  scope: string,
  window: { readonly start: string; readonly end: string } | null,
  ledgerNanoUsd: number,
): Ledger {
  return {
    scope,
    window,
    startMs: window === null ? Number.NEGATIVE_INFINITY : Date.parse(window.start),
    endMs: window === null ? Number.POSITIVE_INFINITY : Date.parse(window.end),
    ledgerNanoUsd,
    journalNanoUsd: 0,
  };
}
