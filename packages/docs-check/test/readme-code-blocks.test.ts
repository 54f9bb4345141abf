import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { root, sourceEntries } from '../../../scripts/workspace-packages.mjs';
import { checkCodeBlocks } from '../src/check-code-blocks.js';
import { extractCodeBlocks } from '../src/extract-code-blocks.js';
import { readmeFiles } from '../src/readme-files.js';

// Docs that run (issue 14): every ts/js block of every README type-checks against
// the packages' sources. Mark a block that cannot (rarely, and say why) with
// ```ts no-check <the reason>; see the root README's "Development" section.
const blocks = readmeFiles().flatMap((file) =>
  extractCodeBlocks(file, readFileSync(join(root, file), 'utf8')),
);
const checked = blocks.filter((block) => block.skipReason === null);
const folder = join(root, 'packages/docs-check');
let results = new Map<(typeof blocks)[number], string[]>();

beforeAll(() => {
  const diagnostics = checkCodeBlocks(checked, { folder, paths: sourceEntries() });
  results = new Map(checked.map((block, index) => [block, diagnostics[index] ?? []]));
});

describe('README code blocks', () => {
  it('finds the blocks of the root README', () => {
    expect(blocks.filter((block) => block.file === 'README.md').length).toBeGreaterThan(0);
  });

  for (const block of blocks) {
    const title = `${block.file}:${block.line} (${block.language})`;
    if (block.skipReason === null) {
      it(`${title} type-checks`, () => {
        expect(results.get(block)).toEqual([]);
      });
    } else if (block.skipReason === '') {
      it(`${title} says why it is marked no-check`, () => {
        expect.fail(`${title}: write the reason after no-check, e.g. \`\`\`ts no-check needs a live key`);
      });
    } else {
      it.skip(`${title} is not checked: ${block.skipReason}`, () => {});
    }
  }
});
