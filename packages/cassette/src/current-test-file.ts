import { isAbsolute, relative, sep } from 'node:path';
import { hasControlCharacter } from './control-characters.js';

/** Where Jest keeps its `expect` state; Vitest keeps the same there (`expect.getState()`). */
const MATCHERS_STATE = Symbol.for('$$jest-matchers-object');
/** The longest test-file name a cassette line holds. */
export const MAX_TEST_FILE_LENGTH = 1024;

/**
 * The test file running now, as the test runner's `expect` state names it (`testPath`: Vitest
 * and Jest both keep it under `Symbol.for('$$jest-matchers-object')`), relative to the working
 * directory with `/` separators, so a cassette never holds a home folder; null outside a test
 * runner (or for a name a cassette line could not hold).
 */
export function currentTestFile(): string | null {
  let path: unknown;
  try {
    const holder = (globalThis as Record<symbol, { state?: { testPath?: unknown } } | undefined>)[
      MATCHERS_STATE
    ];
    path = holder?.state?.testPath;
  } catch {
    return null;
  }
  if (typeof path !== 'string' || path === '') return null;
  const name = (isAbsolute(path) ? relative(process.cwd(), path) : path).split(sep).join('/');
  return isTestFileName(name) ? name : null;
}

/** Whether `value` is a test-file name a cassette line may hold: a short string without control characters. */
export function isTestFileName(value: unknown): value is string {
  return (
    typeof value === 'string' &&
    value !== '' &&
    value.length <= MAX_TEST_FILE_LENGTH &&
    !hasControlCharacter(value)
  );
}
