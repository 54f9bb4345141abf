import type { SwitchboardConfig } from '@switchboard/endpoint';
import { formatNanoUsd, PriceBook } from '@switchboard/prices';
import { type JournalVerification, MAX_ISSUE_WARNINGS, verifyJournal } from '@switchboard/telemetry';
import { CliError } from '../cli-error.js';
import type { Io } from '../io.js';
import { plural } from '../plural.js';
import { unreadableFileError } from '../read-input-file.js';
import { safeJson, safeText } from '../terminal-text.js';

/** The prices a verification re-derives with: the installed table plus the configuration's entries. */
function bookOf(config: SwitchboardConfig): PriceBook {
  return new PriceBook().withConfig(config.prices);
}

/**
 * `switchboard report --verify JOURNAL`: re-derives every line's cost from its usage, time
 * and recorded price with the installed price data (plus the config's `[prices."id"]`
 * entries), and names each line whose recorded cost differs (exit 1), each it cannot
 * re-derive and why, the estimates (not re-derivable from usage), any budget scope whose
 * settled spend passed its limit (exit 1), and any budget entry whose limit or scope no budget
 * can have (`limitUsd: 1e308`, exit 1).
 */
export async function verifyReportCommand(
  io: Io,
  file: string,
  options: { json?: boolean },
  config: SwitchboardConfig,
): Promise<void> {
  const name = file === '-' ? '<stdin>' : file;
  let issues = 0;
  let result: JournalVerification;
  try {
    result = await verifyJournal(file, {
      book: bookOf(config),
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
  const { invalidCount } = result.budgets;
  if (result.differingCount > 0 || result.budgets.overspent.length > 0 || invalidCount > 0) {
    const parts = [
      ...(result.differingCount > 0
        ? [
            `${plural(result.differingCount, 'line')} of ${name} ${result.differingCount === 1 ? 'does' : 'do'} not add up`,
          ]
        : []),
      ...(result.budgets.overspent.length > 0
        ? [
            `${plural(result.budgets.overspent.length, 'budget scope')} spent past ${result.budgets.overspent.length === 1 ? 'its' : 'their'} limit`,
          ]
        : []),
      ...(invalidCount > 0
        ? [
            `${plural(invalidCount, 'budget entry', 'budget entries')} with a limit or scope no budget can have`,
          ]
        : []),
    ];
    throw new CliError(parts.join('; '), 1);
  }
}

/** The verification in words, one line per finding. */
function verificationText(name: string, result: JournalVerification): string {
  const at = (line: number) => `${safeText(name)}:${line}`;
  const out: string[] = [];
  for (const line of result.differing) out.push(`${at(line.line)}: differs: ${safeText(line.why)}`);
  if (result.differingCount > result.differing.length)
    out.push(`… and ${result.differingCount - result.differing.length} more lines that differ (see --json)`);
  for (const line of result.unverifiable) out.push(`${at(line.line)}: unverifiable: ${safeText(line.why)}`);
  if (result.unverifiableCount > result.unverifiable.length)
    out.push(`… and ${result.unverifiableCount - result.unverifiable.length} more unverifiable lines`);
  if (result.estimates.count > 0) {
    const more = result.estimates.count > result.estimates.lines.length ? ', …' : '';
    out.push(
      `${plural(result.estimates.count, 'estimate')} (a stream that ended without usage; its cost is a lower bound from what was received), not re-derivable from usage: lines ${result.estimates.lines.join(', ')}${more}`,
    );
  }
  for (const budget of result.budgets.invalid) out.push(`${at(budget.line)}: ${safeText(budget.why)}`);
  if (result.budgets.invalidCount > result.budgets.invalid.length)
    out.push(
      `… and ${result.budgets.invalidCount - result.budgets.invalid.length} more budget entries that cannot be checked`,
    );
  for (const scope of result.budgets.overspent)
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
      `${result.budgets.scopes > 0 ? `; ${plural(result.budgets.scopes, 'budget scope')} checked` : ''}`,
  );
  return `${out.join('\n')}\n`;
}
