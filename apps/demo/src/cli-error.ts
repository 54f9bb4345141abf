/** Exit code for input that cannot be used: a config file, an option value, a usage log. */
export const BAD_INPUT_EXIT_CODE = 2;

/** A failure the CLI reports as one line on stderr, exiting with `exitCode`. */
export class CliError extends Error {
  override readonly name = 'CliError';
  /** 1 for a failed operation, 2 for bad input (a config file, a usage log). */
  readonly exitCode: number;

  constructor(message: string, exitCode = 1) {
    super(message);
    this.exitCode = exitCode;
  }
}
