import type { SwitchboardConfig } from '@switchboard/endpoint';
import { PriceBook } from '@switchboard/prices';
import { BAD_INPUT_EXIT_CODE, CliError } from '../cli-error.js';
import { formatUsd } from '../format.js';
import type { Io } from '../io.js';
import { plural } from '../plural.js';
import { readInputFile } from '../read-input-file.js';
import { safeJson, safeText } from '../terminal-text.js';
import { renderUsageTable } from '../usage-table.js';
import { sumTotals, type UsageTotals, usageTotals } from '../usage-totals.js';
import { readCostLine } from './cost-line.js';

/** Options of `switchboard cost`. */
export interface CostCommandOptions {
  /** The model of lines without their own `model` field. */
  model?: string;
  json?: boolean;
}

/** The usage entries priced as one model, and what each cost. */
interface ModelLines {
  readonly entries: Record<string, unknown>[];
  readonly costs: Map<unknown, number>;
}

/**
 * `switchboard cost FILE [--model ID]`: costs out a usage log (JSON Lines, one
 * usage object or call record per line), each line by its own `model` and `at`
 * when it has them, at the shipped prices plus the config's `[prices."id"]`
 * entries. Every line that cannot be costed is named with its line number and
 * why, left out of the total, and makes the exit code 2.
 */
export async function costCommand(
  io: Io,
  file: string,
  options: CostCommandOptions,
  config: SwitchboardConfig = {},
): Promise<void> {
  const book = new PriceBook().withConfig(config.prices);
  const defaultModel = options.model?.trim();
  if (defaultModel !== undefined && !book.has(defaultModel)) {
    throw new CliError(
      `--model: no price recorded for model ${JSON.stringify(defaultModel)}; priced models: ${book.models().join(', ')}`,
      BAD_INPUT_EXIT_CODE,
    );
  }
  const text = await readInputFile(file, 'usage log');

  const byModel = new Map<string, ModelLines>();
  const problems: string[] = [];
  const unpricedModels = new Set<string>();
  let failedCalls = 0;
  text.split(/\r?\n/).forEach((raw, index) => {
    if (raw.trim() === '') return;
    const where = `${file}:${index + 1}`;
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch (error) {
      problems.push(`${where}: not valid JSON (${(error as Error).message})`);
      return;
    }
    const line = readCostLine(value, defaultModel);
    // A failed call is not a line that cannot be costed: it cost nothing, and does not change the exit code.
    if ('failedCall' in line) {
      failedCalls += 1;
      return;
    }
    if ('problem' in line) {
      problems.push(`${where}: ${line.problem}`);
      return;
    }
    const pricing = book.priceCall({ model: line.model, usage: line.usage, at: line.at ?? Date.now() });
    if (pricing.costUsd === null || pricing.pricedAs === null) {
      const known = book.has(line.model);
      if (!known) unpricedModels.add(line.model);
      problems.push(
        `${where}: no price for model ${JSON.stringify(line.model)}${known && line.at ? ` at ${line.at}` : ''}`,
      );
      return;
    }
    const lines: ModelLines = byModel.get(pricing.pricedAs) ?? { entries: [], costs: new Map() };
    lines.entries.push(line.usage);
    lines.costs.set(line.usage, pricing.costUsd);
    byModel.set(pricing.pricedAs, lines);
  });

  // Once per model, not once per line: a long log of one unknown model says it once.
  for (const model of unpricedModels) {
    io.stderr(
      `switchboard: warning: no price recorded for model ${safeText(JSON.stringify(model))}; add [prices."${safeText(model)}"] to a --config file\n`,
    );
  }
  const rows = [...byModel].map(([model, lines]) => ({
    label: model,
    totals: usageTotals(lines.entries, (usage) => lines.costs.get(usage) ?? null),
  }));
  const totals: UsageTotals = sumTotals(rows.map((row) => row.totals));
  if (options.json) {
    io.stdout(
      safeJson({
        model: defaultModel ?? null,
        ...totals,
        models: Object.fromEntries(rows.map((row) => [row.label, row.totals])),
        problems,
        failedCalls,
      }),
    );
  } else {
    const table = rows.length > 1 ? [...rows, { label: 'total', totals }] : rows;
    if (table.length > 0) io.stdout(`${renderUsageTable('model', table, { color: io.color })}\n`);
    io.stdout(`total: ${formatUsd(totals.usd)} over ${plural(totals.calls, 'call')}\n`);
    if (failedCalls > 0) io.stderr(`${plural(failedCalls, 'failed call')} without usage: nothing to cost\n`);
    for (const problem of problems) io.stderr(`${safeText(problem)}\n`);
  }
  if (problems.length > 0) {
    throw new CliError(
      `${plural(problems.length, 'line')} in ${file} could not be costed, left out of the total`,
      BAD_INPUT_EXIT_CODE,
    );
  }
}
