import { checkJournalLine, JOURNAL_LIMITS, MAX_ISSUE_WARNINGS, scanLines } from '@switchboard/telemetry';
import { BAD_INPUT_EXIT_CODE, CliError } from '../cli-error.js';
import { configPriceBook } from '../config-price-book.js';
import { formatUsd } from '../format.js';
import type { Io } from '../io.js';
import type { CliConfig } from '../load-config.js';
import { plural } from '../plural.js';
import { unreadableFileError } from '../read-input-file.js';
import { safeJson, safeText } from '../terminal-text.js';
import { renderUsageTable } from '../usage-table.js';
import { sumTotals, UsageAccumulator, type UsageTotals } from '../usage-totals.js';
import { readCostLine } from './cost-line.js';

/** Options of `switchboard cost`. */
export interface CostCommandOptions {
  /** The model of lines without their own `model` field. */
  model?: string;
  json?: boolean;
}

/** Problems the JSON output lists one by one; all are counted. */
const MAX_LISTED_PROBLEMS = 100;

/**
 * `switchboard cost FILE [--model ID]`: costs out a usage log (JSON Lines, one
 * usage object or call record per line; `-` reads stdin), streaming in flat
 * memory, each line by its own `model` and `at` when it has them, at the
 * shipped prices plus the config's `[prices."id"]` entries (an entry that replaces a
 * shipped price is said once, when a line is priced from it). A journal line
 * (one with `v`) is first held to the journal's schema. Every line that cannot
 * be costed is named (`file:line: why`; the first 20 on stderr, then how many
 * more), left out of the total, and makes the exit code 2.
 */
export async function costCommand(
  io: Io,
  file: string,
  options: CostCommandOptions,
  loaded: CliConfig,
): Promise<void> {
  const book = configPriceBook(loaded);
  const defaultModel = options.model?.trim();
  if (defaultModel !== undefined && !book.has(defaultModel)) {
    throw new CliError(
      `--model: no price recorded for model ${JSON.stringify(defaultModel)}; priced models: ${book.models().join(', ')}`,
      BAD_INPUT_EXIT_CODE,
    );
  }
  const name = file === '-' ? '<stdin>' : file;
  const byModel = new Map<string, UsageAccumulator>();
  const problems: string[] = [];
  let problemCount = 0;
  const problem = (text: string) => {
    problemCount += 1;
    if (problems.length < MAX_LISTED_PROBLEMS) problems.push(text);
  };
  const unpricedModels = new Set<string>();
  let failedCalls = 0;
  const costLine = (text: string, where: string) => {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      problem(`${where}: not valid JSON (${(error as Error).message})`);
      return;
    }
    if (typeof value === 'object' && value !== null && 'v' in value) {
      const checked = checkJournalLine(value);
      if (typeof checked === 'string') {
        problem(`${where}: ${checked}`);
        return;
      }
    }
    const line = readCostLine(value, defaultModel);
    // A failed call is not a line that cannot be costed: it cost nothing, and does not change the exit code.
    if ('failedCall' in line) {
      failedCalls += 1;
      return;
    }
    if ('problem' in line) {
      problem(`${where}: ${line.problem}`);
      return;
    }
    const pricing = book.priceCall({ model: line.model, usage: line.usage, at: line.at ?? Date.now() });
    if (pricing.costUsd === null || pricing.pricedAs === null) {
      const known = book.has(line.model);
      // Once per model, not once per line: a long log of one unknown model says it once (up to 100 models).
      if (!known && unpricedModels.size < MAX_LISTED_PROBLEMS) unpricedModels.add(line.model);
      problem(
        `${where}: no price for model ${JSON.stringify(line.model)}${known && line.at ? ` at ${line.at}` : ''}`,
      );
      return;
    }
    loaded.replacedPrices.used(io, pricing.pricedAs);
    let totals = byModel.get(pricing.pricedAs);
    if (totals === undefined) {
      totals = new UsageAccumulator();
      byModel.set(pricing.pricedAs, totals);
    }
    totals.add(line.usage, pricing.costUsd);
  };
  try {
    await scanLines(file, JOURNAL_LIMITS.maxLineBytes, ({ number, text, bytes }) => {
      const where = `${name}:${number}`;
      if (text === null)
        problem(`${where}: ${bytes} bytes, over the ${JOURNAL_LIMITS.maxLineBytes}-byte line cap`);
      else if (text.trim() !== '') costLine(text, where);
    });
  } catch (error) {
    if (typeof (error as NodeJS.ErrnoException | undefined)?.code === 'string')
      throw unreadableFileError(file, 'usage log', error);
    throw error;
  }
  for (const model of unpricedModels) {
    io.stderr(
      `switchboard: warning: no price recorded for model ${safeText(JSON.stringify(model))}; add [prices."${safeText(model)}"] to a --config file\n`,
    );
  }
  const rows = [...byModel].map(([model, totals]) => ({ label: model, totals: totals.totals() }));
  const nanoUsd = [...byModel.values()].reduce((sum, totals) => sum + totals.nanoUsd, 0);
  const totals: UsageTotals = { ...sumTotals(rows.map((row) => row.totals)), usd: nanoUsd / 1e9 };
  if (options.json) {
    io.stdout(
      safeJson({
        model: defaultModel ?? null,
        ...totals,
        models: Object.fromEntries(rows.map((row) => [row.label, row.totals])),
        problems,
        problemCount,
        failedCalls,
      }),
    );
  } else {
    const table = rows.length > 1 ? [...rows, { label: 'total', totals }] : rows;
    if (table.length > 0) io.stdout(`${renderUsageTable('model', table, { color: io.color })}\n`);
    io.stdout(`total: ${formatUsd(totals.usd)} over ${plural(totals.calls, 'call')}\n`);
    // Each line on stderr once, with the prefix every line of the CLI's own on stderr carries.
    for (const text of problems.slice(0, MAX_ISSUE_WARNINGS)) io.stderr(`switchboard: ${safeText(text)}\n`);
    if (problemCount > MAX_ISSUE_WARNINGS)
      io.stderr(`switchboard: … and ${problemCount - MAX_ISSUE_WARNINGS} more\n`);
    if (failedCalls > 0)
      io.stderr(`switchboard: ${plural(failedCalls, 'failed call')} without usage: nothing to cost\n`);
  }
  if (problemCount > 0) {
    throw new CliError(
      `${plural(problemCount, 'line')} in ${name} could not be costed, left out of the total`,
      BAD_INPUT_EXIT_CODE,
    );
  }
}
