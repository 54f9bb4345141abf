import { BAD_INPUT_EXIT_CODE, CliError } from './cli-error.js';

/** Parses `--name VALUE` as a finite number within [min, max], or exits 2 naming the option. */
export function parseNumberOption(name: string, value: string, range: { min: number; max: number }): number {
  const number = Number(value);
  if (value.trim() === '' || !Number.isFinite(number) || number < range.min || number > range.max) {
    throw new CliError(
      `--${name}: expected a number from ${range.min} to ${range.max}, got '${value}'`,
      BAD_INPUT_EXIT_CODE,
    );
  }
  return number;
}

/** Parses `--name VALUE` as a positive whole number, or exits 2 naming the option. */
export function parsePositiveInteger(name: string, value: string): number {
  const number = Number(value);
  if (!/^\s*\d+\s*$/.test(value) || !Number.isSafeInteger(number) || number <= 0) {
    throw new CliError(`--${name}: expected a positive whole number, got '${value}'`, BAD_INPUT_EXIT_CODE);
  }
  return number;
}
