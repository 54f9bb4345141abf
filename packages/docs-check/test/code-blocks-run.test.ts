import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Emulator, startEmulator } from '@switchboard/emulator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { root, sourceEntries } from '../../../scripts/workspace-packages.mjs';
import { extractCodeBlocks } from '../src/extract-code-blocks.js';
import { readmeFiles } from '../src/readme-files.js';
import { runCodeBlock } from '../src/run-code-block.js';

// Docs that run: every checked ts/js block of every README and docs/ page runs as a
// program of its own against the emulator (PRIMARY_API_KEY and PRIMARY_BASE_URL point at
// it) and must end by itself with exit code 0: no hard-coded address that only works with
// a real provider, no server left open. Mark a block that cannot run here with
// ```ts no-run <the reason>.
const KEY = 'docs-run-key';
const blocks = readmeFiles().flatMap((file) =>
  extractCodeBlocks(file, readFileSync(join(root, file), 'utf8')),
);
let emulator: Emulator;

beforeAll(async () => {
  emulator = await startEmulator({ key: KEY });
});
afterAll(() => emulator?.close());

/** The environment every block runs with: the emulator as the primary provider, nothing else of ours. */
function blockEnvironment(): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '',
    NO_COLOR: '1',
    PRIMARY_API_KEY: KEY,
    PRIMARY_BASE_URL: emulator.url,
  };
}

describe('what a block prints', () => {
  it("docs/streaming.md's first example prints the cost on a line of its own, after the streamed answer", async () => {
    const [first] = blocks.filter((block) => block.file === 'docs/streaming.md');
    if (first === undefined) return expect.fail('docs/streaming.md has no ts block');
    const outcome = await runCodeBlock(first, {
      folder: join(root, 'packages/docs-check/.run-blocks'),
      paths: sourceEntries(),
      env: blockEnvironment(),
    });
    expect(outcome.ok, outcome.output).toBe(true);
    // stdout alone: a library's warning on stderr (a price gone stale since its checked date) may come last.
    const lines = outcome.stdout.trimEnd().split('\n');
    // The answer, then `costUsd firstDeltaMs` alone on the last line.
    expect(lines.length).toBeGreaterThan(1);
    expect(lines.at(-1)).toMatch(/^\d[\d.e-]* \d+(\.\d+)?$/);
  });
});

describe('README and docs code blocks run to completion against the emulator', () => {
  for (const block of blocks) {
    const title = `${block.file}:${block.line} (${block.language})`;
    if (block.skipReason !== null) continue;
    if (block.noRunReason === '') {
      it(`${title} says why it is marked no-run`, () => {
        expect.fail(`${title}: write the reason after no-run, e.g. \`\`\`ts no-run needs a Redis server`);
      });
    } else if (block.noRunReason !== null) {
      it.skip(`${title} is not run: ${block.noRunReason}`, () => {});
    } else {
      it(`${title} runs to completion`, async () => {
        const outcome = await runCodeBlock(block, {
          folder: join(root, 'packages/docs-check/.run-blocks'),
          paths: sourceEntries(),
          env: blockEnvironment(),
        });
        if (!outcome.ok) expect.fail(`${title}: ${outcome.output}`);
      });
    }
  }
});
