// ioredis is an optional peer dependency: where it is not installed (test/support/ioredis-missing.cjs
// makes the child's require('ioredis') fail as it then does), the package still loads and a memory
// store works, and a Redis store from a url says what to install instead of a bare MODULE_NOT_FOUND.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
const packageRoot = fileURLToPath(new URL('../', import.meta.url));
const missing = fileURLToPath(new URL('./support/ioredis-missing.cjs', import.meta.url));

const program = `
import { createBudget } from './src/budget.ts';
import { RedisBudgetStore } from './src/redis-store.ts';
const budget = createBudget({ scope: { name: 'no-ioredis', limitUsd: 1 }, maxCostUsdOf: () => 0.1 });
const usage = await budget.usage();
let refused = null;
try {
  new RedisBudgetStore({ url: 'redis://127.0.0.1:1' });
} catch (error) {
  refused = { message: error.message, cause: error.cause?.code };
}
process.stdout.write(JSON.stringify({ scopes: usage.length, refused }));
`;

describe('RedisBudgetStore without ioredis installed', () => {
  it('says to install it, while the package and a memory store work', async () => {
    const { stdout } = await run(
      process.execPath,
      ['--require', missing, '--import', 'tsx', '--input-type=module', '--eval', program],
      { cwd: packageRoot, timeout: 60_000 },
    );
    expect(JSON.parse(stdout)).toEqual({
      scopes: 1,
      refused: {
        message:
          'RedisBudgetStore with a url needs the `ioredis` package, 5 or 6 (an optional peer dependency of @switchboard/budget): npm install ioredis',
        cause: 'MODULE_NOT_FOUND',
      },
    });
  });
});
