import { ChatError } from '@switchboard/adapter';
import { ConfigError } from '@switchboard/endpoint';
import { CommanderError } from 'commander';
import { BAD_INPUT_EXIT_CODE, CliError } from './cli-error.js';
import type { Io } from './io.js';
import { createProgram } from './program.js';
import { safeText } from './terminal-text.js';

/** Runs the CLI with `argv` (without the node and script paths) and returns the exit code. */
export async function main(argv: readonly string[], io: Io): Promise<number> {
  const fail = (message: string, exitCode: number): number => {
    io.stderr(`switchboard: ${safeText(message)}\n`);
    return exitCode;
  };
  try {
    await createProgram(io).parseAsync([...argv], { from: 'user' });
    return 0;
  } catch (error) {
    // Help and version exit 0; every other commander error is a usage mistake, already printed.
    if (error instanceof CommanderError) return error.exitCode === 0 ? 0 : BAD_INPUT_EXIT_CODE;
    if (error instanceof CliError) return fail(error.message, error.exitCode);
    // An environment variable the resolver could not use (PRIMARY_BASE_URL): bad input.
    if (ConfigError.isInstance(error)) return fail(error.message, BAD_INPUT_EXIT_CODE);
    if (ChatError.isInstance(error)) return fail(`${error.kind}: ${error.message}`, 1);
    const message = error instanceof Error ? error.message : String(error);
    return fail(`unexpected error (a bug; please report it): ${message}`, 1);
  }
}
