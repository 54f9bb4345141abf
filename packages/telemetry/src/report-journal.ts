import { type JournalIssue, readJournal, warnJournalIssue } from './read-journal.js';
import { ReportAccumulator, type ReportFigures, type ReportOptions } from './report-accumulator.js';

/** Options of {@link reportJournal}. */
export interface ReportJournalOptions extends ReportOptions {
  /** Told about each skipped line (default: a process warning); the report counts them and names the first by number. */
  readonly onIssue?: (issue: JournalIssue) => void;
}

/** Reads a journal file, streaming, into the figures of its report. */
export async function reportJournal(
  path: string,
  options: ReportJournalOptions = {},
): Promise<ReportFigures> {
  const accumulator = new ReportAccumulator(options);
  const lines = readJournal(path, {
    onIssue: (issue) => {
      accumulator.skip(issue.line);
      (options.onIssue ?? warnJournalIssue)(issue);
    },
  });
  for await (const line of lines) accumulator.add(line);
  return accumulator.result();
}
