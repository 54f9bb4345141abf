import type { SwitchboardConfig } from '@switchboard/endpoint';
import { formatNanoUsd } from '@switchboard/prices';
import { type JournalsVerification, verifyJournals } from '@switchboard/telemetry';
import { BAD_INPUT_EXIT_CODE, CliError } from '../cli-error.js';
import type { Io } from '../io.js';
import { plural } from '../plural.js';
import type { JournalSources } from '../report/journal-sources.js';
import { cappedWarnings } from '../report/read-journal-report.js';
import { safeJson, safeText } from '../terminal-text.js';
import { ledgerChecks, ledgerDifferences, ledgerLines } from './report-ledger.js';
import { bookOf, unverifiedParts, verificationText, wrongParts } from './report-verify.js';

/** Most lines read twice, or told two ways, named in the text. */
const NAMED = 20;

/**
 * `switchboard report --verify` over many journals: each verified by itself (as one journal is),
 * then all of them as one record: a call told two ways in any two lines (the same `callId`, other
 * figures) fails, a line copied is named only, and each budget scope's settled spend summed over
 * every host is checked against its limit. Exit 1 naming what fails; 2 when the only failure is a
 * journal that could not be read.
 */
export async function verifyFleetCommand(
  io: Io,
  sources: JournalSources,
  options: { json?: boolean; allowUnverifiable?: boolean },
  config: SwitchboardConfig,
): Promise<void> {
  const issues = cappedWarnings((message) => io.stderr(`switchboard: warning: ${safeText(message)}\n`));
  let result: JournalsVerification;
  try {
    result = await verifyJournals(sources.journals, {
      book: bookOf(config),
      allowUnverifiable: options.allowUnverifiable === true,
      onIssue: issues.onIssue,
    });
  } finally {
    issues.end();
  }
  const unreadable = [
    ...sources.unmatched,
    ...result.journals.flatMap((journal) =>
      journal.verification === null ? [{ file: journal.file, why: journal.why ?? 'unreadable' }] : [],
    ),
  ];
  const ledgers = await ledgerChecks(sources);
  if (options.json) io.stdout(safeJson({ ...result, unreadable, ledgers }));
  else
    io.stdout(
      `${fleetText(result, unreadable)}${ledgerLines(ledgers)
        .map((line) => `${line}\n`)
        .join('')}`,
    );
  const parts: string[] = [];
  for (const { file, verification } of result.journals) {
    if (verification === null || verification.ok) continue;
    const wrong = wrongParts(file, verification);
    const unverified = verification.allowUnverifiable ? [] : unverifiedParts(verification);
    if (unverified.length > 0) wrong.push(`${safeText(file)} cannot be verified: ${unverified.join(', ')}`);
    parts.push(...wrong);
  }
  if (result.conflicts.count > 0)
    parts.push(`${plural(result.conflicts.count, 'call')} told two ways (one callId, other figures)`);
  if (result.budgets.overspent.length > 0)
    parts.push(
      `${plural(result.budgets.overspent.length, 'budget scope')} spent past ${result.budgets.overspent.length === 1 ? 'its' : 'their'} limit over all the journals`,
    );
  const differing = ledgerDifferences(ledgers);
  if (differing > 0)
    parts.push(
      `${plural(differing, 'budget ledger')} of PostgreSQL ${differing === 1 ? 'differs' : 'differ'} from the journal`,
    );
  const failed = parts.length > 0;
  for (const journal of unreadable)
    parts.push(`cannot read ${safeText(journal.file)}: ${safeText(journal.why)}`);
  if (parts.length === 0) return;
  throw new CliError(parts.join('; '), failed ? 1 : BAD_INPUT_EXIT_CODE);
}

function fleetText(
  result: JournalsVerification,
  unreadable: readonly { readonly file: string; readonly why: string }[],
): string {
  const out: string[] = [];
  for (const { file, verification } of result.journals)
    if (verification !== null) out.push(`${safeText(file)}:`, verificationText(file, verification).trimEnd());
  for (const journal of unreadable)
    out.push(
      `${safeText(journal.file)}: cannot be read: ${safeText(journal.why)}; its calls are not verified`,
    );
  const at = (place: { file: string; line: number }) => `${safeText(place.file)}:${place.line}`;
  out.push('', 'All the journals as one:');
  for (const line of result.conflicts.lines.slice(0, NAMED))
    out.push(`${at(line)}: told two ways: the call of ${at(line.of)} (its callId) with other figures`);
  if (result.conflicts.count > NAMED) out.push(`… and ${result.conflicts.count - NAMED} more (see --json)`);
  if (result.repeats.count > 0) {
    const named = result.repeats.lines.slice(0, 5).map((line) => `${at(line)} (as ${at(line.of)})`);
    out.push(
      `${plural(result.repeats.count, 'line')} read twice (the same line in two places, e.g. a journal copied), counted once: ${named.join(', ')}${result.repeats.count > 5 ? ', …' : ''}`,
    );
  }
  if (result.late > 0)
    out.push(
      `${plural(result.late, 'line')} out of its journal's order by more than a minute: a copy of such a line may not be found`,
    );
  for (const scope of result.budgets.overspent)
    out.push(
      `${at(scope)}: budget scope ${JSON.stringify(safeText(scope.scope))} spent $${formatNanoUsd(scope.spentNanoUsd, { minDecimals: 2 })} over all the journals, past its limit of $${formatNanoUsd(scope.limitNanoUsd, { minDecimals: 2 })} (passed on this line)`,
    );
  const failing = result.journals.filter((journal) => journal.verification?.ok === false).length;
  out.push(
    `${plural(result.journals.length, 'journal')}: ${failing === 0 ? 'each verifies' : `${failing} fail`}${unreadable.length > 0 ? `, ${unreadable.length} unreadable` : ''}; ${result.conflicts.count === 0 ? 'no call told two ways' : `${plural(result.conflicts.count, 'call')} told two ways`}; ${plural(result.budgets.scopes, 'budget scope')} summed over every host${result.budgets.overspent.length === 0 ? ', none past its limit' : ''}`,
  );
  return `${out.join('\n')}\n`;
}
