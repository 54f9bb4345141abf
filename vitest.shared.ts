import { sourceEntries } from './scripts/workspace-packages.mjs';

/**
 * Maps each workspace package's name (published or private, e.g. a test-support
 * package) to its TypeScript source entry, so tests run against the code as
 * written, without a build step. The list comes from the workspace itself.
 */
export const sourceAliases: Record<string, string> = sourceEntries();
