import { type FleetReportFigures, reportJournals } from '@switchboard/telemetry';
import type { JournalSources } from './journal-sources.js';
import { cappedWarnings, type ReadJournalReportOptions, reportOptions } from './read-journal-report.js';

/**
 * The report figures of many journals as one (see `reportJournals`), with the names that gave
 * no journal (a folder without `*.jsonl`, a glob matching nothing) among the unreadable ones.
 */
export async function readFleetReport(
  sources: JournalSources,
  options: ReadJournalReportOptions,
): Promise<FleetReportFigures> {
  const issues = cappedWarnings(options.warn);
  try {
    const figures = await reportJournals(sources.journals, reportOptions(options, issues.onIssue));
    if (sources.unmatched.length === 0) return figures;
    return {
      ...figures,
      journals: { ...figures.journals, unreadable: [...sources.unmatched, ...figures.journals.unreadable] },
    };
  } finally {
    issues.end();
  }
}
