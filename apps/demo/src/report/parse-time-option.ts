import { BAD_INPUT_EXIT_CODE, CliError } from '../cli-error.js';
import { safeText } from '../terminal-text.js';

// A date, optionally with a time and a zone: what `--since`/`--until` take (2026-11-23, 2026-11-23T09:00Z).
const ISO_TIME = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/i;

/**
 * The epoch milliseconds of an ISO time given to `option` (e.g. `--since`), or
 * undefined when the option was not given; exits 2 naming the option otherwise.
 */
export function parseTimeOption(value: string | undefined, option: string): number | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  const time = ISO_TIME.test(text) ? Date.parse(text) : Number.NaN;
  if (!Number.isFinite(time)) {
    throw new CliError(
      `${option}: expected an ISO time such as 2026-11-23T09:00:00Z (or a date, 2026-11-23), got ${JSON.stringify(safeText(value))}`,
      BAD_INPUT_EXIT_CODE,
    );
  }
  return time;
}
