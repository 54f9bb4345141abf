import { costOf, PRICE_TABLE, priceOf } from '@switchboard/prices';
import { BAD_INPUT_EXIT_CODE, CliError } from '../cli-error.js';
import { formatCount, formatUsd, renderTable } from '../format.js';
import type { Io } from '../io.js';
import { readInputFile } from '../read-input-file.js';
import { usageTotals } from '../usage-totals.js';

function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return `a ${typeof value}`;
}

/**
 * `switchboard cost FILE --model ID`: costs out a usage log (JSON Lines, one
 * usage object per line). Malformed lines are reported with their line number
 * and left out of the total; any such line makes the exit code 2.
 */
export async function costCommand(io: Io, file: string, options: { model: string }): Promise<void> {
  const prices = priceOf(options.model);
  if (prices === null) {
    throw new CliError(
      `no price recorded for model '${options.model.trim()}'; priced models: ${[...PRICE_TABLE.keys()].join(', ')}`,
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
    if (value === null || typeof value !== 'object' || Array.isArray(value)) {
      problems.push(`${where}: expected a usage object, got ${describeValue(value)}`);
      return;
    }
    entries.push(value);
  });

  const totals = usageTotals(entries, (usage) => costOf(prices, usage));
  io.stdout(
    `${renderTable(
      ['model', 'calls', 'cache hit', 'cache miss', 'output', 'USD'],
      [
        [
          options.model.trim(),
          formatCount(totals.calls),
          formatCount(totals.cacheHit),
          formatCount(totals.cacheMiss),
          formatCount(totals.output),
          formatUsd(totals.usd),
        ],
      ],
      { color: io.color, rightAligned: [1, 2, 3, 4, 5] },
    )}\n`,
  );
  io.stdout(`total: ${formatUsd(totals.usd)} over ${totals.calls} calls\n`);
  if (problems.length > 0) {
    for (const problem of problems) io.stderr(`${problem}\n`);
    throw new CliError(
      `${problems.length} malformed line(s) in ${file} left out of the total`,
      BAD_INPUT_EXIT_CODE,
    );
  }
}
