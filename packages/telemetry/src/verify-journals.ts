import { BudgetCheck } from './budget-check.js';
import { mergeJournals, type NamedJournal } from './journal-merge.js';
import { type JournalPlace, type RepeatedLines, RepeatFindings } from './repeat-findings.js';
import { unreadableWhy } from './unreadable-why.js';
import type { OverspentScope } from './verify-findings.js';
import { type JournalVerification, type VerifyJournalOptions, verifyJournal } from './verify-journal.js';

/** A budget scope whose settled spend over all the journals passed its limit, and where it did. */
export interface FleetOverspentScope extends Omit<OverspentScope, 'line'>, JournalPlace {}

/** What {@link verifyJournals} found. */
export interface JournalsVerification {
  /**
   * True when every journal could be read and verifies (see `JournalVerification.ok`), no call is
   * told two ways (`conflicts`) and no budget scope's settled spend, summed over all the journals
   * (every host), passed its limit.
   */
  readonly ok: boolean;
  /** Each journal's own verification (null when it could not be read: `why`). */
  readonly journals: readonly {
    readonly file: string;
    readonly verification: JournalVerification | null;
    readonly why?: string;
  }[];
  /** Lines read twice with the same text (a journal copied twice): not a finding, named. */
  readonly repeats: RepeatedLines;
  /** Lines with an earlier line's `callId` and another text, in any journals: each fails the verification. */
  readonly conflicts: RepeatedLines;
  /** Lines out of their journal's order by more than a minute: a copy of one may go unnoticed. */
  readonly late: number;
  /** The budget scopes followed over all the journals (each call once), and those overspent. */
  readonly budgets: { readonly scopes: number; readonly overspent: readonly FleetOverspentScope[] };
}

// A place as one number for the budget check (which keeps a line's number): journal × 2^32 + line.
const PLACE = 2 ** 32;

/**
 * Verifies many journals as one record (a fleet's): each journal by itself, as
 * {@link verifyJournal} does (its costs, facts, its writers' numbering, its budget entries),
 * then all of them merged by time, each call once: a call told two ways in any two lines fails
 * it (`conflicts`), a line copied is only named (`repeats`), and each budget scope's settled
 * spend is summed over every host and checked against its limit. A journal that cannot be
 * read fails it, named with why.
 */
export async function verifyJournals(
  journals: readonly NamedJournal[],
  options: VerifyJournalOptions = {},
): Promise<JournalsVerification> {
  const results: { file: string; verification: JournalVerification | null; why?: string }[] = [];
  for (const journal of journals) {
    try {
      const verification = await verifyJournal(journal.source, { ...options, name: journal.name });
      results.push({ file: journal.name, verification });
    } catch (error) {
      results.push({ file: journal.name, verification: null, why: unreadableWhy(error) });
    }
  }
  const maxListed = options.maxListed ?? 100;
  const budgets = new BudgetCheck(maxListed);
  const repeats = new RepeatFindings(journals, maxListed);
  // Each journal's lines were named by its own pass: this one only merges them.
  await mergeJournals(journals, { onIssue: () => undefined, onUnreadable: () => undefined }, (merged) => {
    if (!repeats.isNew(merged)) return;
    const { checked } = merged;
    budgets.add(
      checked.line as unknown as Record<string, unknown>,
      checked,
      merged.journal * PLACE + merged.line,
      null,
    );
  });
  const overspent = budgets.result().overspent.map(({ line, ...scope }) => ({
    ...scope,
    ...repeats.place(Math.floor(line / PLACE), line % PLACE),
  }));
  const ok =
    results.every((result) => result.verification?.ok === true) &&
    repeats.conflicts.count === 0 &&
    overspent.length === 0;
  return Object.freeze({
    ok,
    journals: results,
    repeats: repeats.repeats,
    conflicts: repeats.conflicts,
    late: repeats.late,
    budgets: Object.freeze({ scopes: budgets.result().scopes, overspent }),
  });
}
