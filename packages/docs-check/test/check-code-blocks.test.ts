import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { root, sourceEntries } from '../../../scripts/workspace-packages.mjs';
import { checkCodeBlocks } from '../src/check-code-blocks.js';
import { extractCodeBlocks } from '../src/extract-code-blocks.js';

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
