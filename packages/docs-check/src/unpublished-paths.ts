import { existsSync } from 'node:fs';
import { join } from 'node:path';

/** Files npm and pnpm put in every tarball, whatever `files` says. */
const ALWAYS_PACKED = /^(?:package\.json|readme(?:\.[^/]*)?|license(?:\.[^/]*)?|licence(?:\.[^/]*)?)$/i;

/** Whether `path` (relative to the package folder) is in its tarball, by the manifest's `files`. */
function isPacked(path: string, files: readonly string[] | undefined): boolean {
  if (ALWAYS_PACKED.test(path)) return true;
  if (files === undefined) return true;
  return files.some((entry) => {
    const folder = entry.replace(/^\.\//, '').replace(/\/+$/, '');
    return path === folder || path.startsWith(`${folder}/`);
  });
}

/**
 * The code spans of a package README that name a file or folder of the package's source tree
 * (one that exists in `dir`) that its tarball leaves out: a reader of the README on the registry
 * or in `node_modules` has no such file. A span inside a link to an absolute address (the
 * repository) is fine.
 */
export function unpublishedPaths(
  markdown: string,
  dir: string,
  files: readonly string[] | undefined,
): string[] {
  const withoutRepositoryLinks = markdown.replace(/\[[^\]]*\]\([a-z][a-z0-9+.-]*:[^)]*\)/gi, '');
  const named = new Set<string>();
  for (const [, span = ''] of withoutRepositoryLinks.matchAll(/`([^`\s]+)`/g)) {
    const path = span.replace(/^\.\//, '').replace(/\/+$/, '');
    if (path === '' || path.startsWith('/') || path.includes('..') || path.startsWith('@')) continue;
    if (!/[/.]/.test(path)) continue;
    if (existsSync(join(dir, path)) && !isPacked(path, files)) named.add(span);
  }
  return [...named];
}
