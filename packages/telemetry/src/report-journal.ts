import { cappedIssueWarner, type JournalIssue, scanJournal } from './read-journal.js';
import { ReportAccumulator, type ReportFigures, type ReportOptions } from './report-accumulator.js';
import type { JournalSource } from './scan-lines.js';

/** Options of {@link reportJournal}. */
export interface ReportJournalOptions extends ReportOptions {
  /**
   * Told about each skipped line (default: the first 20 as process warnings, then
   * how many more); the report counts them and names the first by number.
   */
  readonly onIssue?: (issue: JournalIssue) => void;
  /** How issues name the source; default: its path (`<stdin>` for `-`). */
  readonly name?: string;
}

/** Reads a journal (a path, `-` for stdin, or a stream of bytes), streaming in flat memory, into the figures of its report. */
export async function reportJournal(
  source: JournalSource,
  options: ReportJournalOptions = {},
): Promise<ReportFigures> {
  const accumulator = new ReportAccumulator(options);
  const warner = options.onIssue === undefined ? cappedIssueWarner() : null;
  const onIssue = options.onIssue ?? warner?.warn;
  await scanJournal(source, {
    ...(options.name === undefined ? {} : { name: options.name }),
    onLine: (checked, lineNumber) => accumulator.addChecked(checked, lineNumber),
    onIssue: (issue) => {
      accumulator.skip(issue.line);
      onIssue?.(issue);
    },
  });
  warner?.end();
  return accumulator.result();
}
