import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { root, sourceEntries } from '../../../scripts/workspace-packages.mjs';
import { checkCodeBlocks } from '../src/check-code-blocks.js';
import { extractCodeBlocks, extractShellRecipes } from '../src/extract-code-blocks.js';
import { runShellRecipe } from '../src/run-code-block.js';

const folder = join(root, 'packages/docs-check');
const markdown = [
  '# Example',
  '',
  '```ts',
  "import { priceOf } from '@switchboard/prices';",
  "const flash = priceOf('primary-flash');",
  '```',
  '',
  '```ts continues',
  "const price: number = flash?.inputPerM ?? 'none';",
  '```',
  '',
  '```ts',
  'const cost = endpoint.costUsd();',
  '```',
  '',
  '````js',
  "const { priceOf } = require('@switchboard/prices');",
  "priceOf('primary-flash').nope();",
  '````',
  '',
  '```ts no-check shows a fragment',
  'client.complete(',
  '```',

  '',
  '```sh',
  'echo not code we check',
  '```',
].join('\n');

describe('extractCodeBlocks', () => {
  it('returns the ts and js blocks with their line, language and no-check reason', () => {
    const blocks = extractCodeBlocks('EXAMPLE.md', markdown);
    expect(blocks.map(({ line, language, skipReason }) => ({ line, language, skipReason }))).toEqual([
      { line: 3, language: 'ts', skipReason: null },
      { line: 8, language: 'ts', skipReason: null },
      { line: 12, language: 'ts', skipReason: null },
      { line: 16, language: 'js', skipReason: null },
      { line: 21, language: 'ts', skipReason: 'shows a fragment' },
    ]);
    expect(blocks[0]?.code).toBe(
      "import { priceOf } from '@switchboard/prices';\nconst flash = priceOf('primary-flash');",
    );
  });
});

describe('checkCodeBlocks', () => {
  it('passes a correct block and points each error at its README line', () => {
    const blocks = extractCodeBlocks('EXAMPLE.md', markdown).filter((block) => block.skipReason === null);
    const [fine, continued, undefinedName, wrongCall] = checkCodeBlocks(blocks, {
      folder,
      paths: sourceEntries(),
    });
    expect(fine).toEqual([]);
    // The continuing block sees `flash` from its predecessors and is blamed only for its own line.
    expect(continued).toEqual([expect.stringMatching(/^EXAMPLE\.md:9:7: TS2322 /)]);
    expect(undefinedName).toEqual([
      expect.stringMatching(/^EXAMPLE\.md:13:14: TS2304 Cannot find name 'endpoint'/),
    ]);
    expect(wrongCall?.join('\n')).toMatch(/^EXAMPLE\.md:18:/);
  });
});

describe('extractShellRecipes', () => {
  const recipeMarkdown = [
    '```sh recipe try',
    'folder=$(mktemp -d)',
    '```',
    '',
    '```sh',
    'echo not a recipe',
    '```',
    '',
    '```bash recipe other',
    'echo other',
    '```',
    '',
    '```sh recipe try',
    'cd "$folder"',
    '```',
  ].join('\n');

  it('groups the marked shell blocks by recipe, in order, and leaves unmarked ones out', () => {
    expect(extractShellRecipes('EXAMPLE.md', recipeMarkdown)).toEqual([
      { file: 'EXAMPLE.md', name: 'try', lines: [1, 13], script: 'folder=$(mktemp -d)\ncd "$folder"' },
      { file: 'EXAMPLE.md', name: 'other', lines: [9], script: 'echo other' },
    ]);
    expect(extractShellRecipes('EXAMPLE.md', markdown)).toEqual([]);
  });
});

describe('runShellRecipe', () => {
  const env = { PATH: process.env.PATH ?? '' };

  it('passes a recipe whose every command succeeds, later blocks seeing earlier variables', async () => {
    const outcome = await runShellRecipe({ script: 'word=ready\ntest "$word" = ready' }, { cwd: root, env });
    expect(outcome.ok).toBe(true);
  });

  it('fails a recipe at its first failing command, even one whose output is piped', async () => {
    const outcome = await runShellRecipe({ script: 'false | cat\necho never-reached' }, { cwd: root, env });
    expect(outcome.ok).toBe(false);
    expect(outcome.output).not.toContain('never-reached\n');
  });
});
