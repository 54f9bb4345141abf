import { BAD_INPUT_EXIT_CODE, CliError } from '../cli-error.js';
import type { Io } from '../io.js';
import { parseTimeOption } from '../report/parse-time-option.js';
import { readJournalReport } from '../report/read-journal-report.js';
import { renderJournalReport } from '../report/render-journal-report.js';
import { reportWidth } from '../report/report-width.js';
import { safeJson, safeText } from '../terminal-text.js';

/** Options of `switchboard report`. */
export interface ReportCommandOptions {
  json?: boolean;
  since?: string;
  until?: string;
}

/**
 * `switchboard report JOURNAL`: the report of a run's journal (JSON Lines, one
 * call record per line), read streaming. Unreadable lines are named by number
 * on stderr and left out; the report still exits 0.
 */
export async function reportCommand(io: Io, file: string, options: ReportCommandOptions): Promise<void> {
  const since = parseTimeOption(options.since, '--since');
  const until = parseTimeOption(options.until, '--until');
  if (since !== undefined && until !== undefined && until <= since) {
    throw new CliError('--until: must be later than --since', BAD_INPUT_EXIT_CODE);
  }
  const figures = await readJournalReport(file, {
    since,
    until,
    warn: (message) => io.stderr(`switchboard: warning: ${safeText(file)}: ${safeText(message)}\n`),
  });
  if (options.json) io.stdout(safeJson(figures));
  else io.stdout(renderJournalReport(figures, { color: io.color, width: reportWidth(io) }));
}
