import { readFile } from 'node:fs/promises';
import { BAD_INPUT_EXIT_CODE, CliError } from './cli-error.js';

/** Reads a file the user named, or exits 2 naming it, what it is for, and why it could not be read. */
export async function readInputFile(file: string, what: string): Promise<string> {
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'unreadable';
    throw new CliError(`${file}: cannot read the ${what} (${code})`, BAD_INPUT_EXIT_CODE);
  }
}
