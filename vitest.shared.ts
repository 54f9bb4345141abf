import { sourceEntries } from './scripts/workspace-packages.mjs';

/**
 * Maps each workspace package's name (published or private, e.g. a test-support
 * package) to its TypeScript source entry, so tests run against the code as
 * written, without a build step. The list comes from the workspace itself.
 */
export const sourceAliases: Record<string, string> = sourceEntries();

/**
 * A test's and a hook's time limit: a guard against a hang, never a check of speed. The machines are
 * shared, and a suite run beside the others under load can be many times slower than alone (a 5 s
 * default failed a property test of 500 tiny runs there).
 */
export const hangGuards = { testTimeout: 60_000, hookTimeout: 60_000 } as const;
