import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { publishedPackages } from '../../../scripts/workspace-packages.mjs';
import { unpublishedPaths } from '../src/unpublished-paths.js';

// A package's README ships in its tarball: it names no file of the package's source tree that the
// tarball leaves out (link to the repository instead).
describe('package READMEs name only files their tarballs hold', () => {
  for (const pkg of publishedPackages()) {
    it(`${pkg.folder}/README.md`, () => {
      const readme = readFileSync(join(pkg.dir, 'README.md'), 'utf8');
      const files = pkg.manifest.files as string[] | undefined;
      expect(unpublishedPaths(readme, pkg.dir, files)).toEqual([]);
    });
  }
});

describe('unpublishedPaths', () => {
  const dir = mkdtempSync(join(tmpdir(), 'readme-paths-'));
  mkdirSync(join(dir, 'src/scripts'), { recursive: true });
  mkdirSync(join(dir, 'dist'), { recursive: true });
  writeFileSync(join(dir, 'src/table.json'), '{}');
  writeFileSync(join(dir, 'dist/index.js'), '');
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('names a source file or folder the tarball leaves out, not one it holds nor a link to the repository', () => {
    const markdown = [
      'The table, from `src/table.json`; the scripts in `src/scripts/`.',
      'Built to `dist/index.js`; configure `switchboard.toml`; see `README.md`.',
      'The source: [`src/table.json`](https://github.com/example/repo/blob/main/src/table.json).',
    ].join('\n');
    expect(unpublishedPaths(markdown, dir, ['dist', 'LICENSE'])).toEqual(['src/table.json', 'src/scripts/']);
  });
});
