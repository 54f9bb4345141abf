import {
  type JournalIssue,
  MAX_ISSUE_WARNINGS,
  type ReportFigures,
  type ReportJournalOptions,
  reportJournal,
} from '@switchboard/telemetry';
import { unreadableFileError } from '../read-input-file.js';

/** Options of {@link readJournalReport}. */
export interface ReadJournalReportOptions {
  /** Only calls at or after this time (epoch milliseconds). */
  readonly since?: number;
  /** Only calls before this time (epoch milliseconds). */
  readonly until?: number;
  /** The age in days past which a price counts as stale (the config's `[pricing] stale_after_days`). */
  readonly staleAfterDays?: number;
  /**
   * Told about skipped lines (`run.jsonl:7: not JSON, skipped`): the first 20 one by
   * one, then once how many more.
   */
  readonly warn: (message: string) => void;
}

/**
 * The report figures of a journal file (`-`: stdin), read streaming in flat
 * memory; a file that cannot be read (missing, a directory) exits 2 saying why in words.
 */
export async function readJournalReport(
  file: string,
  options: ReadJournalReportOptions,
): Promise<ReportFigures> {
  const issues = cappedWarnings(options.warn);
  try {
    return await reportJournal(file, reportOptions(options, issues.onIssue));
  } catch (error) {
    // Only the file system's errors carry a code; anything else is a bug, reported as one.
    if (typeof (error as NodeJS.ErrnoException | undefined)?.code === 'string') {
      throw unreadableFileError(file, 'journal', error);
    }
    throw error;
  } finally {
    issues.end();
  }
}

/** The reader's options for the report's: its time window and stale age, and where skipped lines go. */
export function reportOptions(
  options: ReadJournalReportOptions,
  onIssue: (issue: JournalIssue) => void,
): ReportJournalOptions {
  return {
    ...(options.since === undefined ? {} : { since: options.since }),
    ...(options.until === undefined ? {} : { until: options.until }),
    ...(options.staleAfterDays === undefined ? {} : { staleAfterDays: options.staleAfterDays }),
    onIssue,
  };
}

/** Skipped lines told to `warn`: the first 20 one by one, then (at `end`) how many more. */
export function cappedWarnings(warn: (message: string) => void): {
  onIssue(issue: JournalIssue): void;
  end(): void;
} {
  let issues = 0;
  return {
    onIssue: (issue) => {
      issues += 1;
      if (issues <= MAX_ISSUE_WARNINGS) warn(issue.message);
    },
    end: () => {
      if (issues > MAX_ISSUE_WARNINGS) warn(`… and ${issues - MAX_ISSUE_WARNINGS} more lines skipped`);
    },
  };
}
