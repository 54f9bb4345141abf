import { writeFile } from 'node:fs/promises';
import { renderReport, renderReportHtml } from '@switchboard/telemetry';
import { BAD_INPUT_EXIT_CODE, CliError } from '../cli-error.js';
import type { Io } from '../io.js';
import type { CliConfig } from '../load-config.js';
import { fileErrorReason } from '../read-input-file.js';
import { announcedPrices } from '../report/announced-prices.js';
import { journalSources, namesManyJournals } from '../report/journal-sources.js';
import { parseTimeOption } from '../report/parse-time-option.js';
import { readFleetReport } from '../report/read-fleet-report.js';
import { readJournalReport } from '../report/read-journal-report.js';
import { reportWidth } from '../report/report-width.js';
import { safeJson, safeText } from '../terminal-text.js';
import { verifyFleetCommand } from './report-fleet-verify.js';
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
 * `switchboard report JOURNAL...`: the report of a run's journal (JSON Lines, one
 * call record per line; `-` reads stdin), read streaming in flat memory; `--html FILE`
 * also writes it as an HTML page (`--html -`: the page on stdout instead of the text). Lines
 * that cannot be trusted are named on stderr (`file:line: why`, the first 20,
 * then how many more) and left out; the report still exits 0. With `verify`, re-derives
 * every line's cost instead (see `verifyReportCommand`). Many journals (several, a folder, a
 * glob: a fleet's) are reported as one, merged by time, each call once, with totals by host and
 * process; one that cannot be read is named and the rest reported, exit 2.
 */
export async function reportCommand(
  io: Io,
  journals: readonly string[],
  options: ReportCommandOptions,
  loaded: CliConfig,
): Promise<void> {
  const { config } = loaded;
  const many = await namesManyJournals(journals);
  const warn = (message: string) => io.stderr(`switchboard: warning: ${safeText(message)}\n`);
  const file = journals[0] ?? '-';
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
    if (many) await verifyFleetCommand(io, await journalSources(journals, warn), options, config);
    else await verifyReportCommand(io, file, options, config);
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
  const readOptions = {
    since,
    until,
    ...(config.pricing?.stale_after_days === undefined
      ? {}
      : { staleAfterDays: config.pricing.stale_after_days }),
    warn,
  };
  const sources = many ? await journalSources(journals, warn) : null;
  const fleet = sources === null ? null : await readFleetReport(sources, readOptions);
  const read = fleet ?? (await readJournalReport(file, readOptions));
  const figures = { ...read, announced: announcedPrices(read, loaded) };
  const unreadable = fleet?.journals.unreadable ?? [];
  const failure =
    unreadable.length === 0
      ? null
      : new CliError(
          `cannot read ${unreadable.map((journal) => `${safeText(journal.file)} (${safeText(journal.why)})`).join(', ')}: the report is of the other journals`,
          BAD_INPUT_EXIT_CODE,
        );
  if (options.html !== undefined) {
    // A journal in PostgreSQL is named by its source, never by the address given (its password).
    const title =
      sources === null
        ? file === '-'
          ? 'stdin'
          : file
        : sources.journals.length === 1
          ? (sources.journals[0]?.name ?? file)
          : `${sources.journals.length} journals`;
    const page = renderReportHtml(figures, { title });
    if (htmlToStdout) {
      io.stdout(page);
      if (failure !== null) throw failure;
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
  if (failure !== null) throw failure;
}
