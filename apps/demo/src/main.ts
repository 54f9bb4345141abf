import { ChatError } from '@switchboard/adapter';
import { ConfigError } from '@switchboard/endpoint';
import { CommanderError } from 'commander';
import { BAD_INPUT_EXIT_CODE, CliError } from './cli-error.js';
import type { Io } from './io.js';
import { jsonFailure, wantsJson } from './json-failure.js';
import { createProgram } from './program.js';
import { safeJson, safeText } from './terminal-text.js';

/**
 * Runs the CLI with `argv` (without the node and script paths) and returns the exit code.
 * A failure is one `switchboard: ...` line on stderr; with `--json`, also a JSON error object
 * on stdout (see `JsonFailure`) unless the command already printed its document, so a
 * script reading stdout always gets exactly one.
 */
export async function main(argv: readonly string[], commandIo: Io): Promise<number> {
  const json = wantsJson(argv);
  // A command that printed its JSON document before failing (cost with lines it could not
  // cost) has said it all: stdout stays one document.
  let wroteStdout = false;
  const io: Io = {
    ...commandIo,
    stdout: (text) => {
      wroteStdout = true;
      commandIo.stdout(text);
    },
  };
  const fail = (message: string, exitCode: number, chatError?: ChatError, printed = false): number => {
    if (!printed) io.stderr(`switchboard: ${safeText(message)}\n`);
    if (json && !wroteStdout) io.stdout(safeJson(jsonFailure(message, exitCode, chatError)));
    return exitCode;
  };
  try {
    await createProgram(io).parseAsync([...argv], { from: 'user' });
    return 0;
  } catch (error) {
    // Help and version exit 0; every other commander error is a usage mistake, already printed.
    if (error instanceof CommanderError) {
      if (error.exitCode === 0) return 0;
      return fail(error.message.replace(/^error: /, ''), BAD_INPUT_EXIT_CODE, undefined, true);
    }
    if (error instanceof CliError) return fail(error.message, error.exitCode);
    // A config file `loadConfig` refused, or an environment variable the resolver could not use: bad input.
    if (ConfigError.isInstance(error)) return fail(error.message, BAD_INPUT_EXIT_CODE);
    if (ChatError.isInstance(error)) return fail(`${error.kind}: ${error.message}`, 1, error);
    const message = error instanceof Error ? error.message : String(error);
    return fail(`unexpected error (a bug; please report it): ${message}`, 1);
  }
}
