import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Emulator, startEmulator } from '@switchboard/emulator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { root, sourceEntries } from '../../../scripts/workspace-packages.mjs';
import { startRedis, type TestRedis } from '../../budget/test/support/start-redis.js';
import { extractCodeBlocks } from '../src/extract-code-blocks.js';
import { runCodeBlock } from '../src/run-code-block.js';

// The blocks of docs/budgets.md that read REDIS_URL run once more, with REDIS_URL set to a
// real redis-server (the other docs test runs them without it, in memory): on Redis they
// must still end by themselves, so a budget's close() must leave nothing open.
const KEY = 'docs-redis-key';
const FILE = 'docs/budgets.md';
const blocks = extractCodeBlocks(FILE, readFileSync(join(root, FILE), 'utf8')).filter(
  (block) => block.skipReason === null && block.noRunReason === null && block.code.includes('REDIS_URL'),
);
let emulator: Emulator;
let redis: TestRedis;

beforeAll(async () => {
  emulator = await startEmulator({ key: KEY });
  redis = await startRedis();
});
afterAll(async () => {
  await emulator?.close();
  await redis?.stop();
});

describe(`${FILE}: the blocks that read REDIS_URL run to completion against a real redis-server`, () => {
  it('has such a block', () => {
    expect(blocks.length).toBeGreaterThan(0);
  });
  for (const block of blocks) {
    it(`${block.file}:${block.line} ends by itself with REDIS_URL set`, async () => {
      const outcome = await runCodeBlock(block, {
        folder: join(root, 'packages/docs-check/.run-blocks'),
        paths: sourceEntries(),
        env: {
          PATH: process.env.PATH ?? '',
          NO_COLOR: '1',
          PRIMARY_API_KEY: KEY,
          PRIMARY_BASE_URL: emulator.url,
          REDIS_URL: redis.url,
        },
      });
      if (!outcome.ok) expect.fail(`${block.file}:${block.line}: ${outcome.output}`);
      // It used Redis: the scope it printed is in the server.
      expect(outcome.output).toMatch(/scope: 'run-42'/);
      const held = execFileSync(
        'redis-cli',
        ['-p', String(redis.port), '--scan', '--pattern', '*{run-42}*'],
        {
          encoding: 'utf8',
        },
      );
      expect(held).toMatch(/\{run-42\}:state/);
    });
  }
});
