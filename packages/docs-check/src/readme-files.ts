import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { root, workspacePackages } from '../../../scripts/workspace-packages.mjs';

/**
 * Every Markdown file whose code blocks are checked, relative to the repository root: the
 * root README, each workspace package's README, and the pages under `docs/`.
 */
export function readmeFiles(): string[] {
  const docs = existsSync(join(root, 'docs'))
    ? readdirSync(join(root, 'docs'))
        .filter((name) => name.endsWith('.md'))
        .sort()
        .map((name) => `docs/${name}`)
    : [];
  return ['README.md', ...workspacePackages().map((pkg) => `${pkg.folder}/README.md`), ...docs].filter(
    (file) => existsSync(join(root, file)),
  );
}
