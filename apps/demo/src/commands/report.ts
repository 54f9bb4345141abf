import { writeFile } from 'node:fs/promises';
import { renderReport, renderReportHtml } from '@switchboard/telemetry';
import { BAD_INPUT_EXIT_CODE, CliError } from '../cli-error.js';
import type { Io } from '../io.js';
import type { CliConfig } from '../load-config.js';
import { fileErrorReason } from '../read-input-file.js';
import { parseTimeOption } from '../report/parse-time-option.js';
import { readJournalReport } from '../report/read-journal-report.js';
import { reportWidth } from '../report/report-width.js';
import { safeJson, safeText } from '../terminal-text.js';
import { verifyReportCommand } from './report-verify.js';

/** Options of `switchboard report`. */
export interface ReportCommandOptions {
  json?: boolean;
  since?: string;
  until?: string;
  /** Also write the report as one self-contained HTML page to this file; `-`: to stdout, instead of the text. */
  html?: string;
  /** Verify every line instead of reporting (exit 1 when a line is wrong, or cannot be verified). */
  verify?: boolean;
  /** With `verify`: accept lines that cannot be verified (still named, with why and how many). */
  allowUnverifiable?: boolean;
}

/**
 * `switchboard report JOURNAL`: the report of a run's journal (JSON Lines, one
 * call record per line; `-` reads stdin), read streaming in flat memory; `--html FILE`
 * also writes it as an HTML page (`--html -`: the page on stdout instead of the text). Lines
 * that cannot be trusted are named on stderr (`file:line: why`, the first 20,
 * then how many more) and left out; the report still exits 0. With `verify`, re-derives
 * every line's cost instead (see `verifyReportCommand`).
 */
export async function reportCommand(
  io: Io,
  file: string,
  options: ReportCommandOptions,
  loaded: CliConfig,
): Promise<void> {
  const { config } = loaded;
  if (options.allowUnverifiable && !options.verify)
    throw new CliError(
      '--allow-unverifiable: only with --verify (it accepts the lines --verify cannot verify)',
      BAD_INPUT_EXIT_CODE,
    );
  if (options.verify) {
    const other = (['since', 'until', 'html'] as const).find((name) => options[name] !== undefined);
    if (other !== undefined)
      throw new CliError(
        `--verify checks every line of the journal: it takes no --${other}`,
        BAD_INPUT_EXIT_CODE,
      );
    // Lines are re-derived with the configuration's entries: a replaced price matters here.
    loaded.replacedPrices.all(io);
    await verifyReportCommand(io, file, options, config);
    return;
  }
  const since = parseTimeOption(options.since, '--since');
  const until = parseTimeOption(options.until, '--until');
  if (since !== undefined && until !== undefined && until <= since) {
    throw new CliError('--until: must be later than --since', BAD_INPUT_EXIT_CODE);
  }
  if (options.html !== undefined && options.html.trim() === '')
    throw new CliError('--html: expected a file to write the HTML report to', BAD_INPUT_EXIT_CODE);
  // `-` is stdout, as a journal of `-` is stdin: the page replaces the text report there.
  const htmlToStdout = options.html?.trim() === '-';
  if (htmlToStdout && options.json)
    throw new CliError(
      '--html -: writes the HTML report to stdout, where --json writes too: give one of them, or --html FILE',
      BAD_INPUT_EXIT_CODE,
    );
  const figures = await readJournalReport(file, {
    since,
    until,
    ...(config.pricing?.stale_after_days === undefined
      ? {}
      : { staleAfterDays: config.pricing.stale_after_days }),
    warn: (message) => io.stderr(`switchboard: warning: ${safeText(message)}\n`),
  });
  if (options.html !== undefined) {
    const page = renderReportHtml(figures, { title: file === '-' ? 'stdin' : file });
    if (htmlToStdout) {
      io.stdout(page);
      return;
    }
    try {
      await writeFile(options.html, page);
    } catch (error) {
      throw new CliError(
        `--html: cannot write the HTML report: ${fileErrorReason(error, 'failed')}: ${options.html}`,
        BAD_INPUT_EXIT_CODE,
      );
    }
  }
  if (options.json) io.stdout(safeJson(figures));
  else io.stdout(renderReport(figures, { color: io.color, width: reportWidth(io) }));
}
