import { BAD_INPUT_EXIT_CODE, CliError } from './cli-error.js';

// The system's error codes in words: a user reads "no such file", not ENOENT.
const REASONS: Record<string, string> = {
  ENOENT: 'no such file',
  EISDIR: 'is a directory, not a file',
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  ENOTDIR: 'a part of the path is not a directory',
};

/** The exit-2 error for a file the user named that could not be read: what it is for, why (in words), its path. */
export function unreadableFileError(file: string, what: string, error: unknown): CliError {
  return new CliError(
    `cannot read the ${what}: ${fileErrorReason(error, 'unreadable')}: ${file}`,
    BAD_INPUT_EXIT_CODE,
  );
}

/** A file system error in words (`no such file`), else `fallback` with the code. */
export function fileErrorReason(error: unknown, fallback: string): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code ?? '';
  return REASONS[code] ?? `${fallback}${code === '' ? '' : ` (${code})`}`;
}
