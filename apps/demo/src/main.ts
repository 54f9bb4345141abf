import { ChatError } from '@switchboard/adapter';
import { CommanderError } from 'commander';
import { CliError } from './cli-error.js';
import type { Io } from './io.js';
import { createProgram } from './program.js';

/** Runs the CLI with `argv` (without the node and script paths) and returns the exit code. */
export async function main(argv: readonly string[], io: Io): Promise<number> {
  try {
    await createProgram(io).parseAsync([...argv], { from: 'user' });
    return 0;
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode;
    if (error instanceof CliError) {
      io.stderr(`switchboard: ${error.message}\n`);
      return error.exitCode;
    }
    if (ChatError.isInstance(error)) {
      io.stderr(`switchboard: ${error.kind}: ${error.message}\n`);
      return 1;
    }
    const message = error instanceof Error ? error.message : String(error);
    io.stderr(`switchboard: unexpected error: ${message}\n`);
    return 1;
  }
}
