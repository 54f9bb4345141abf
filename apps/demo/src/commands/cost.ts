import { describeType } from '@switchboard/endpoint';
import { costOf, PRICE_TABLE, priceOf } from '@switchboard/prices';
import { BAD_INPUT_EXIT_CODE, CliError } from '../cli-error.js';
import { formatUsd } from '../format.js';
import type { Io } from '../io.js';
import { plural } from '../plural.js';
import { readInputFile } from '../read-input-file.js';
import { safeJson, safeText } from '../terminal-text.js';
import { renderUsageTable } from '../usage-table.js';
import { usageTotals } from '../usage-totals.js';

/**
 * `switchboard cost FILE --model ID`: costs out a usage log (JSON Lines, one
 * usage object per line). Malformed lines are reported with their line number
 * and left out of the total; any such line makes the exit code 2.
 */
export async function costCommand(
  io: Io,
  file: string,
  options: { model: string; json?: boolean },
): Promise<void> {
  const model = options.model.trim();
  const prices = priceOf(model);
  if (prices === null) {
    throw new CliError(
      `--model: no price recorded for model ${JSON.stringify(model)}; priced models: ${[...PRICE_TABLE.keys()].join(', ')}`,
      BAD_INPUT_EXIT_CODE,
    );
  }
  const text = await readInputFile(file, 'usage log');

  const entries: unknown[] = [];
  const problems: string[] = [];
  text.split(/\r?\n/).forEach((line, index) => {
    if (line.trim() === '') return;
    const where = `${file}:${index + 1}`;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (error) {
      problems.push(`${where}: not valid JSON (${(error as Error).message})`);
      return;
    }
    if (describeType(value) !== 'object') {
      problems.push(`${where}: expected a usage object, got ${describeType(value)}`);
      return;
    }
    entries.push(value);
  });

  const totals = usageTotals(entries, (usage) => costOf(prices, usage));
  if (options.json) {
    io.stdout(safeJson({ model, ...totals, problems }));
  } else {
    io.stdout(`${renderUsageTable('model', [{ label: model, totals }], { color: io.color })}\n`);
    io.stdout(`total: ${formatUsd(totals.usd)} over ${plural(totals.calls, 'call')}\n`);
    for (const problem of problems) io.stderr(`${safeText(problem)}\n`);
  }
  if (problems.length > 0) {
    throw new CliError(
      `${plural(problems.length, 'malformed line')} in ${file} left out of the total`,
      BAD_INPUT_EXIT_CODE,
    );
  }
}
