import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { root, workspacePackages } from '../../../scripts/workspace-packages.mjs';

/** Every README.md of the repository, relative to its root: the root's and each workspace package's. */
export function readmeFiles(): string[] {
  return ['README.md', ...workspacePackages().map((pkg) => `${pkg.folder}/README.md`)].filter((file) =>
    existsSync(join(root, file)),
  );
}
