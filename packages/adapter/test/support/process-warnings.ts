import { onTestFinished } from 'vitest';

/** A process warning with the `code` the libraries give theirs. */
export type ProcessWarning = Error & { code?: string };

/**
 * The process warnings emitted from now on, for the rest of the running test
 * (they arrive on a later tick); the listener is removed when the test ends.
 */
export function collectWarnings(): ProcessWarning[] {
  const warnings: ProcessWarning[] = [];
  const listener = (warning: Error) => warnings.push(warning);
  process.on('warning', listener);
  onTestFinished(() => {
    process.off('warning', listener);
  });
  return warnings;
}

/** Those of `warnings` with the given code. */
export function warningsWithCode(warnings: readonly ProcessWarning[], code: string): ProcessWarning[] {
  return warnings.filter((warning) => warning.code === code);
}
