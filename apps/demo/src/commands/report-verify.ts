import type { SwitchboardConfig } from '@switchboard/endpoint';
import { formatNanoUsd, PriceBook } from '@switchboard/prices';
import { type JournalVerification, MAX_ISSUE_WARNINGS, verifyJournal } from '@switchboard/telemetry';
import { CliError } from '../cli-error.js';
import type { Io } from '../io.js';
import { plural } from '../plural.js';
import { unreadableFileError } from '../read-input-file.js';
import { safeJson, safeText } from '../terminal-text.js';

/** The prices a verification re-derives with: the installed table plus the configuration's entries. */
export function bookOf(config: SwitchboardConfig): PriceBook {
  return new PriceBook().withConfig(config.prices);
}

/**
 * `switchboard report --verify JOURNAL`: re-derives every line's cost from its usage, time
 * and recorded price with the installed price data (plus the config's `[prices."id"]`
 * entries), and exits 1 naming each line whose recorded cost differs, each line whose facts
 * contradict one another (a reply with 0 prompt tokens), each line missing, repeated or out of
 * order (by its writer's `host`, `pid` and `seq`, and its `callId`), any budget scope whose
 * settled spend passed its limit, any budget entry whose limit or scope no budget can have
 * (`limitUsd: 1e308`) and any scope whose limit changes within one process. Lines it cannot
 * verify (a cost it cannot re-derive, an estimate, an unreadable line, a line without a number,
 * a sent call charged to no scope where its process's others were) are named with why, and
 * fail it too unless `allowUnverifiable`.
 */
export async function verifyReportCommand(
  io: Io,
  file: string,
  options: { json?: boolean; allowUnverifiable?: boolean },
  config: SwitchboardConfig,
): Promise<void> {
  const name = file === '-' ? '<stdin>' : file;
  let issues = 0;
  let result: JournalVerification;
  try {
    result = await verifyJournal(file, {
      book: bookOf(config),
      allowUnverifiable: options.allowUnverifiable === true,
      onIssue: (issue) => {
        issues += 1;
        if (issues <= MAX_ISSUE_WARNINGS) io.stderr(`switchboard: warning: ${safeText(issue.message)}\n`);
      },
    });
  } catch (error) {
    if (typeof (error as NodeJS.ErrnoException | undefined)?.code === 'string')
      throw unreadableFileError(file, 'journal', error);
    throw error;
  } finally {
    if (issues > MAX_ISSUE_WARNINGS)
      io.stderr(`switchboard: warning: … and ${issues - MAX_ISSUE_WARNINGS} more lines skipped\n`);
  }
  if (options.json) io.stdout(safeJson({ file: name, ...result }));
  else io.stdout(verificationText(name, result));
  if (result.ok) return;
  const parts = wrongParts(name, result);
  const unverified = unverifiedParts(result);
  if (!result.allowUnverifiable && unverified.length > 0)
    parts.push(
      `cannot be verified: ${unverified.join(', ')} (--allow-unverifiable accepts such lines, still naming why)`,
    );
  throw new CliError(parts.join('; '), 1);
}

/** What is wrong with the journal, one part per kind of finding. */
export function wrongParts(name: string, result: JournalVerification): string[] {
  const { budgets, sequence } = result;
  const parts: string[] = [];
  if (result.differingCount > 0)
    parts.push(
      `${plural(result.differingCount, 'line')} of ${name} ${result.differingCount === 1 ? 'does' : 'do'} not add up`,
    );
  if (result.inconsistentCount > 0)
    parts.push(
      `${plural(result.inconsistentCount, 'line')} ${result.inconsistentCount === 1 ? 'contradicts itself' : 'contradict themselves'}`,
    );
  if (sequence.missing > 0) parts.push(`${plural(sequence.missing, 'line')} missing`);
  if (sequence.duplicates > 0) parts.push(`${plural(sequence.duplicates, 'line')} written twice`);
  if (sequence.outOfOrder > 0) parts.push(`${plural(sequence.outOfOrder, 'line')} out of order`);
  if (budgets.overspent.length > 0)
    parts.push(
      `${plural(budgets.overspent.length, 'budget scope')} spent past ${budgets.overspent.length === 1 ? 'its' : 'their'} limit`,
    );
  if (budgets.invalidCount > 0)
    parts.push(
      `${plural(budgets.invalidCount, 'budget entry', 'budget entries')} with a limit or scope no budget can have`,
    );
  if (budgets.changedCount > 0)
    parts.push(`${plural(budgets.changedCount, 'budget limit')} changed between lines of one process`);
  return parts;
}

/**
 * Why lines could not be verified, with how many of each (empty when every line was); a line
 * may be counted under two reasons.
 */
export function unverifiedParts(result: JournalVerification): string[] {
  const parts: string[] = [];
  const count = (value: number, words: string) => {
    if (value > 0) parts.push(words);
  };
  const { sequence, budgets } = result;
  count(sequence.unnumbered.count, `${plural(sequence.unnumbered.count, 'line')} without a number`);
  count(result.skipped, plural(result.skipped, 'unreadable line'));
  count(
    result.unverifiableCount,
    `${plural(result.unverifiableCount, 'line')} whose cost cannot be re-derived`,
  );
  count(result.estimates.count, plural(result.estimates.count, 'estimate'));
  count(budgets.unchargedCount, `${plural(budgets.unchargedCount, 'sent call')} charged to no budget scope`);
  return parts;
}

/** The verification in words, one line per finding. */
export function verificationText(name: string, result: JournalVerification): string {
  const at = (line: number) => `${safeText(name)}:${line}`;
  const out: string[] = [];
  const more = (count: number, listed: number, what: string) => {
    if (count > listed) out.push(`… and ${count - listed} more ${what} (see --json)`);
  };
  for (const line of result.differing) out.push(`${at(line.line)}: differs: ${safeText(line.why)}`);
  more(result.differingCount, result.differing.length, 'lines that differ');
  for (const line of result.inconsistent) out.push(`${at(line.line)}: inconsistent: ${safeText(line.why)}`);
  more(result.inconsistentCount, result.inconsistent.length, 'lines that contradict themselves');
  const { sequence } = result;
  for (const finding of sequence.findings)
    out.push(`${at(finding.line)}: ${FINDING_WORDS[finding.kind]}: ${safeText(finding.why)}`);
  more(sequence.findingCount, sequence.findings.length, 'lines missing, repeated or out of order');
  for (const line of result.unverifiable) out.push(`${at(line.line)}: unverifiable: ${safeText(line.why)}`);
  more(result.unverifiableCount, result.unverifiable.length, 'unverifiable lines');
  if (result.estimates.count > 0) {
    const more = result.estimates.count > result.estimates.lines.length ? ', …' : '';
    out.push(
      `${plural(result.estimates.count, 'estimate')} (a stream that ended without usage; its cost is a lower bound from what was received), not re-derivable from usage: lines ${result.estimates.lines.join(', ')}${more}`,
    );
  }
  if (sequence.unnumbered.count > 0) {
    const more = sequence.unnumbered.count > sequence.unnumbered.lines.length ? ', …' : '';
    out.push(
      `${plural(sequence.unnumbered.count, 'line')} without a number (journal format 1, or not written by a CallJournal): a line missing, repeated or out of order among them cannot be found: lines ${sequence.unnumbered.lines.join(', ')}${more}`,
    );
  }
  if (result.skipped > 0)
    out.push(
      `${plural(result.skipped, 'unreadable line')} (named above): ${result.skipped === 1 ? 'its call is' : 'their calls are'} in no figure, so ${result.skipped === 1 ? 'it' : 'they'} cannot be verified`,
    );
  const { budgets } = result;
  for (const budget of budgets.invalid) out.push(`${at(budget.line)}: ${safeText(budget.why)}`);
  more(budgets.invalidCount, budgets.invalid.length, 'budget entries that cannot be checked');
  for (const budget of budgets.changed) out.push(`${at(budget.line)}: ${safeText(budget.why)}`);
  more(budgets.changedCount, budgets.changed.length, 'budget limits changed');
  for (const budget of budgets.uncharged)
    out.push(`${at(budget.line)}: unverifiable: ${safeText(budget.why)}`);
  more(budgets.unchargedCount, budgets.uncharged.length, 'calls charged to no budget scope');
  for (const scope of budgets.overspent)
    out.push(
      `${at(scope.line)}: budget scope ${JSON.stringify(safeText(scope.scope))} spent $${formatNanoUsd(scope.spentNanoUsd, { minDecimals: 2 })} in this journal, past its limit of $${formatNanoUsd(scope.limitNanoUsd, { minDecimals: 2 })} (passed on this line)`,
    );
  const checked = result.verified + result.differingCount;
  out.push(
    `${plural(result.lines, 'line')} read: ${result.verified} of ${plural(checked, 'priced line')} re-derived to the nano-dollar with @switchboard/prices ${result.pricesVersion}` +
      `${result.differingCount > 0 ? `, ${result.differingCount} ${result.differingCount === 1 ? 'differs' : 'differ'}` : ''}` +
      `${result.unverifiableCount > 0 ? `; ${result.unverifiableCount} unverifiable` : ''}` +
      `; ${result.withoutCost} without a cost to verify` +
      `${result.skipped > 0 ? `; ${plural(result.skipped, 'unreadable line')} skipped` : ''}` +
      `${budgets.scopes > 0 ? `; ${plural(budgets.scopes, 'budget scope')} checked` : ''}` +
      `${sequence.writers > 0 ? `; numbered lines of ${plural(sequence.writers, 'process', 'processes')} followed${sequence.findingCount === 0 ? ', none missing, repeated or out of order' : ''}` : ''}`,
  );
  const unverified = unverifiedParts(result);
  if (result.allowUnverifiable && unverified.length > 0)
    out.push(`accepted with --allow-unverifiable, not verified: ${unverified.join(', ')}`);
  return `${out.join('\n')}\n`;
}

const FINDING_WORDS = {
  missing: 'missing',
  duplicate: 'written twice',
  'out-of-order': 'out of order',
} as const;
