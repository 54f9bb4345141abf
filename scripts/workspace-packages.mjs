// The one list of workspace packages (issue 9): read from pnpm-workspace.yaml's
// globs and each folder's package.json, never written out by hand. Vitest's
// source aliases, the size budgets, the package checks, the consumer fixture
// check, TypeDoc and the test summary all take their package list from here, so
// a new `packages/<name>` is picked up as soon as it has a package.json.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root, with a trailing slash. */
export const root = fileURLToPath(new URL('..', import.meta.url));

/** The folders pnpm-workspace.yaml names, relative to the root (`packages/prices`, `bench`, ...). */
export function workspaceFolders() {
  const globs = readFileSync(join(root, 'pnpm-workspace.yaml'), 'utf8')
    .split('\n')
    .map((line) => /^\s+-\s+['"]?([^'"]+?)['"]?\s*$/.exec(line)?.[1])
    .filter((glob) => glob !== undefined);
  return globs.flatMap((glob) =>
    glob.endsWith('/*')
      ? readdirSync(join(root, glob.slice(0, -2)), { withFileTypes: true })
          .filter((entry) => entry.isDirectory())
          .map((entry) => `${glob.slice(0, -2)}/${entry.name}`)
          .sort()
      : [glob],
  );
}

/**
 * Every workspace package: `{ name, folder, dir, manifest, published }`, where
 * `folder` is relative to the root, `dir` absolute, and `published` is false for
 * `"private": true` packages (apps, bench, fixtures, test helpers).
 */
export function workspacePackages() {
  return workspaceFolders()
    .filter((folder) => existsSync(join(root, folder, 'package.json')))
    .map((folder) => {
      const manifest = JSON.parse(readFileSync(join(root, folder, 'package.json'), 'utf8'));
      return { name: manifest.name, folder, dir: join(root, folder), manifest, published: !manifest.private };
    });
}

/** The packages that are released to the registry (not `"private": true`). */
export function publishedPackages() {
  return workspacePackages().filter((pkg) => pkg.published);
}

/**
 * The published packages that are libraries (a package.json `exports` entry `.`), as
 * opposed to a command-line tool that only has a `bin` (`@switchboard/cli`): the ones
 * code imports, so the cold-import, consumer-fixture and API-reference checks cover them.
 */
export function libraryPackages() {
  return publishedPackages().filter((pkg) => pkg.manifest.exports?.['.'] !== undefined);
}

/**
 * Each workspace package's name (published or private) mapped to its TypeScript
 * source entry, `src/index.ts`, for the packages that have one: vitest's aliases
 * and the README check's `paths` resolve `@switchboard/<name>` to the code as
 * written, without a build.
 */
export function sourceEntries() {
  return Object.fromEntries(
    workspacePackages()
      .map((pkg) => [pkg.name, join(pkg.dir, 'src/index.ts')])
      .filter(([, entry]) => existsSync(entry)),
  );
}
