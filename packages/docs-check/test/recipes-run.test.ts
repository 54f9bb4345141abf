import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { root } from '../../../scripts/workspace-packages.mjs';
import { extractShellRecipes } from '../src/extract-code-blocks.js';
import { readmeFiles } from '../src/readme-files.js';
import { runShellRecipe } from '../src/run-code-block.js';

// Recipes that run: the ```sh recipe <name> blocks of every README and docs/ page, each
// recipe's blocks as one bash script started at the repository root, every command of
// which must succeed. The one today is docs/releasing.md's "Try it from tarballs": `pnpm
// run pack`, then installing the tarballs into empty projects with npm and with pnpm (from
// the registry for openai, zod, ...) and running the CLI's demo from each. Its build step is
// skipped (SWITCHBOARD_PACK_BUILT=1): this package's test task already depends on the build
// of every published package (turbo.json), and a second turbo run here would rewrite
// dist/ under the suites running beside it.
const recipes = readmeFiles().flatMap((file) =>
  extractShellRecipes(file, readFileSync(join(root, file), 'utf8')),
);

/** This process's environment without what the package manager running the tests set for it. */
function userEnvironment(): Record<string, string> {
  return Object.fromEntries(
    Object.entries(process.env).filter(
      (entry): entry is [string, string] =>
        entry[1] !== undefined && !/^(?:npm_|pnpm_|turbo_|init_cwd$)/i.test(entry[0]),
    ),
  );
}

describe('shell recipes in the docs run', () => {
  it('finds the try-it-from-tarballs recipe in docs/releasing.md', () => {
    expect(recipes.map(({ file, name }) => `${file} ${name}`)).toContain('docs/releasing.md tarballs');
  });

  for (const recipe of recipes) {
    it(`${recipe.file}:${recipe.lines.join(',')} recipe ${recipe.name} runs`, {
      timeout: 900_000,
    }, async () => {
      // The projects it makes with mktemp land in a folder of its own, removed after.
      const scratch = mkdtempSync(join(tmpdir(), 'switchboard-recipe-'));
      const outcome = await runShellRecipe(recipe, {
        cwd: root,
        env: { ...userEnvironment(), NO_COLOR: '1', SWITCHBOARD_PACK_BUILT: '1', TMPDIR: scratch },
      }).finally(() => rmSync(scratch, { recursive: true, force: true }));
      if (!outcome.ok) expect.fail(`${recipe.file} recipe ${recipe.name}: ${outcome.output}`);
    });
  }
});
