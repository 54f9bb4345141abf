import type { CheckedJournalLine } from './check-journal-line.js';
import { type HostFigures, HostTally } from './host-tally.js';
import { mergeJournals, type NamedJournal } from './journal-merge.js';
import { cappedIssueWarner, type JournalIssue } from './read-journal.js';
import { type RepeatedLines, RepeatFindings } from './repeat-findings.js';
import { ReportAccumulator, type ReportFigures, type ReportOptions } from './report-accumulator.js';
import { unreadableWhy } from './unreadable-why.js';

/** The figures of a report over many journals: a report's, and by host and process, and what was read twice. */
export interface FleetReportFigures extends ReportFigures {
  /** The journals read (by name, in the order given) and those that could not be read, with why. */
  readonly journals: {
    readonly read: number;
    readonly unreadable: readonly { readonly file: string; readonly why: string }[];
  };
  /** By host (each line's `host`), the dearest first, each with its processes (`pid`). */
  readonly hosts: Readonly<Record<string, HostFigures>>;
  /** Lines read twice with the same text (a journal copied twice): counted once, the first ones named. */
  readonly repeats: RepeatedLines;
  /**
   * Lines with the `callId` of an earlier line but another text: two accounts of one call,
   * counted once (the first read), named; `report --verify` fails on them.
   */
  readonly conflicts: RepeatedLines;
  /**
   * Lines whose call ended more than a minute before an earlier line of their journal: a copy
   * of such a line may not be found (see `RepeatWindow`), so it may be counted twice.
   */
  readonly late: number;
}

/** Options of {@link reportJournals}. */
export interface ReportJournalsOptions extends ReportOptions {
  /** Told about each skipped line (default: the first 20 as process warnings, then how many more). */
  readonly onIssue?: (issue: JournalIssue) => void;
  /** Most repeated and conflicting lines named (the counts are exact); default 100. */
  readonly maxListed?: number;
}

/**
 * The report of many journals as one (a fleet's: every worker's file), read streaming and merged
 * by the time each call ended, in memory bounded by the number of journals and the calls ending within
 * a minute of one another — never by all the lines: each call counted once (a line read twice is a
 * repeat, named and counted once; a line with an earlier line's `callId` and another text, a
 * conflict, named), totals by host and process besides the report's own. A journal that cannot
 * be read is named in `journals.unreadable` and the others are reported.
 */
export async function reportJournals(
  journals: readonly (string | NamedJournal)[],
  options: ReportJournalsOptions = {},
): Promise<FleetReportFigures> {
  const named = journals.map((journal) =>
    typeof journal === 'string' ? { name: journal === '-' ? '<stdin>' : journal, source: journal } : journal,
  );
  const accumulator = new ReportAccumulator(options);
  const since = timeOf(options.since, Number.NEGATIVE_INFINITY);
  const until = timeOf(options.until, Number.POSITIVE_INFINITY);
  const hosts = new HostTally();
  const repeats = new RepeatFindings(named, options.maxListed ?? 100);
  const unreadable: { file: string; why: string }[] = [];
  const warner = options.onIssue === undefined ? cappedIssueWarner() : null;
  const onIssue = options.onIssue ?? warner?.warn ?? (() => undefined);
  await mergeJournals(
    named,
    {
      onIssue: (issue) => {
        accumulator.skip(issue.line);
        onIssue(issue);
      },
      onUnreadable: (journal, error) =>
        unreadable.push({ file: (named[journal] as NamedJournal).name, why: unreadableWhy(error) }),
    },
    (merged) => {
      if (!repeats.isNew(merged)) return;
      accumulator.addChecked(merged.checked, merged.line);
      if (inWindow(merged.checked, since, until)) hosts.add(merged.checked);
    },
  );
  warner?.end();
  return Object.freeze({
    ...accumulator.result(),
    journals: Object.freeze({ read: named.length - unreadable.length, unreadable }),
    hosts: hosts.figures(),
    repeats: repeats.repeats,
    conflicts: repeats.conflicts,
    late: repeats.late,
  });
}

function inWindow(checked: CheckedJournalLine, since: number, until: number): boolean {
  return checked.at >= since && checked.at < until;
}

// The accumulator has checked the option already (it throws on one that is no time).
function timeOf(value: Date | string | number | undefined, otherwise: number): number {
  if (value === undefined) return otherwise;
  return value instanceof Date ? value.getTime() : typeof value === 'number' ? value : Date.parse(value);
}
