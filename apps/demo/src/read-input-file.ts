import { readFile } from 'node:fs/promises';
import { BAD_INPUT_EXIT_CODE, CliError } from './cli-error.js';

// The system's error codes in words: a user reads "no such file", not ENOENT.
const REASONS: Record<string, string> = {
  ENOENT: 'no such file',
  EISDIR: 'is a directory, not a file',
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  ENOTDIR: 'a part of the path is not a directory',
};

/** Reads a file the user named, or exits 2 saying what it is for, why it could not be read, and its path. */
export async function readInputFile(file: string, what: string): Promise<string> {
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? '';
    const reason = REASONS[code] ?? `unreadable${code === '' ? '' : ` (${code})`}`;
    throw new CliError(`cannot read the ${what}: ${reason}: ${file}`, BAD_INPUT_EXIT_CODE);
  }
}
