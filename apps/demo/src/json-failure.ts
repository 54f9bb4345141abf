import type { ChatError } from '@switchboard/adapter';

/** The JSON document a failing command prints on stdout under `--json` (the exit code is kept). */
export interface JsonFailure {
  readonly error: {
    /** The same text as the `switchboard: ...` line on stderr, without the prefix. */
    readonly message: string;
    /** The process's exit code: 1 a call or operation failed, 2 bad input. */
    readonly exitCode: number;
    /** For a failed call, its `ChatError` kind (`timeout`, `auth`, ...); else null. */
    readonly kind: string | null;
    /** For a failed call, the HTTP status when there was one; else null. */
    readonly status: number | null;
  };
}

/** Whether the command line asks for JSON output (`--json` before any `--`). */
export function wantsJson(argv: readonly string[]): boolean {
  const end = argv.indexOf('--');
  return (end === -1 ? argv : argv.slice(0, end)).includes('--json');
}

/** The `--json` failure document for a message and exit code, with a call's kind and status. */
export function jsonFailure(message: string, exitCode: number, chatError?: ChatError): JsonFailure {
  return {
    error: { message, exitCode, kind: chatError?.kind ?? null, status: chatError?.status ?? null },
  };
}
