import { escapeHtml } from './escape-html.js';
import type { JournalPlace, RepeatedLine } from './repeat-findings.js';
import type { ReportFigures } from './report-accumulator.js';
import type { FleetReportFigures } from './report-journals.js';
import { boxTable, countText, percentText, plural, printable, usdText } from './report-text.js';
import type { TallyFigures } from './tally.js';

/** Most hosts, and processes of a host, a report's table shows; the rest are in --json. */
const MAX_HOSTS = 20;
const MAX_PROCESSES = 8;
/** Most repeated or conflicting lines named in a report's notes. */
const NAMED = 5;

/** Whether the figures are of many journals (they have totals by host). */
export function isFleet(figures: ReportFigures): figures is FleetReportFigures {
  return 'hosts' in figures && typeof (figures as { hosts?: unknown }).hosts === 'object';
}

/** The rows of the by-host table: each host, then its dearest processes under it. */
function hostRows(figures: FleetReportFigures): { name: string; figures: TallyFigures }[] {
  const rows: { name: string; figures: TallyFigures }[] = [];
  const hosts = Object.entries(figures.hosts);
  for (const [host, hostFigures] of hosts.slice(0, MAX_HOSTS)) {
    rows.push({ name: host, figures: hostFigures });
    const processes = Object.entries(hostFigures.processes);
    for (const [pid, processFigures] of processes.slice(0, MAX_PROCESSES))
      rows.push({ name: `  pid ${pid}`, figures: processFigures });
    if (processes.length > MAX_PROCESSES)
      rows.push({
        name: `  … ${countText(processes.length - MAX_PROCESSES)} more processes`,
        figures: hostFigures,
      });
  }
  return rows;
}

/** The text report's lines by host and process (after the endpoints). */
export function fleetHostLines(figures: FleetReportFigures, width: number, color: boolean): string[] {
  const total = figures.totals.costNanoUsd;
  const rows = hostRows(figures).map(({ name, figures: row }) =>
    name.startsWith('  …')
      ? [name, '', '', '', '']
      : [
          printable(name),
          countText(row.calls),
          countText(row.failures),
          usdText(row.cost),
          total > 0 ? percentText(row.costNanoUsd / total) : '-',
        ],
  );
  const table = boxTable(['host / process', 'calls', 'failed', 'cost', 'share'], rows, {
    rightAligned: [1, 2, 3, 4],
    width,
    color,
  });
  const lines = ['', color ? '\u001b[1mBy host and process\u001b[22m' : 'By host and process'];
  lines.push(...table.split('\n').map((line) => `  ${line}`));
  const hosts = Object.keys(figures.hosts).length;
  if (hosts > MAX_HOSTS) lines.push(`  … and ${countText(hosts - MAX_HOSTS)} more hosts (see --json)`);
  return lines;
}

/** The notes of a report over many journals: what was read, read twice, told two ways, or not read. */
export function fleetNotes(figures: FleetReportFigures): string[] {
  const { journals, repeats, conflicts } = figures;
  const at = (place: JournalPlace) => `${printable(place.file)}:${place.line}`;
  const named = (lines: readonly RepeatedLine[], count: number) =>
    `${lines
      .slice(0, NAMED)
      .map((line) => `${at(line)} (as ${at(line.of)})`)
      .join(', ')}${count > NAMED ? ', …' : ''}`;
  const notes = [
    `${plural(journals.read, 'journal')} read${journals.unreadable.length > 0 ? `, ${countText(journals.unreadable.length)} could not be` : ''}`,
  ];
  for (const journal of journals.unreadable.slice(0, NAMED))
    notes.push(
      `  cannot read ${printable(journal.file)}: ${printable(journal.why)} (its calls are not in this report)`,
    );
  if (repeats.count > 0)
    notes.push(
      `${plural(repeats.count, 'line')} read twice (the same line in two places, e.g. a journal copied), counted once: ${named(repeats.lines, repeats.count)}`,
    );
  if (conflicts.count > 0)
    notes.push(
      `${plural(conflicts.count, 'line')} with the callId of an earlier line but other figures, counted once (the first read); --verify fails on them: ${named(conflicts.lines, conflicts.count)}`,
    );
  if (figures.late > 0)
    notes.push(
      `${plural(figures.late, 'line')} ended more than a minute before an earlier line of its journal: a copy of such a line may be counted twice`,
    );
  return notes;
}

/** The HTML report's section by host and process, with the notes. */
export function fleetSectionHtml(figures: FleetReportFigures): string {
  const rows = hostRows(figures)
    .map(({ name, figures: row }) =>
      name.startsWith('  …')
        ? `<tr><td colspan="4">${escapeHtml(name.trim())}</td></tr>`
        : `<tr><td>${name.startsWith('  ') ? '&nbsp;&nbsp;' : ''}${escapeHtml(name.trim())}</td><td class="n">${countText(row.calls)}</td><td class="n">${countText(row.failures)}</td><td class="n">${escapeHtml(usdText(row.cost))}</td></tr>`,
    )
    .join('');
  const notes = fleetNotes(figures)
    .map((note) => `<p class="note">${escapeHtml(note.trim())}</p>`)
    .join('');
  return `<section><h2>By host and process</h2><table data-figure="hosts"><thead><tr><th>host / process</th><th class="n">calls</th><th class="n">failed</th><th class="n">cost</th></tr></thead><tbody>${rows}</tbody></table>${notes}</section>`;
}
