import { Redis } from 'ioredis';
import { expect, it } from 'vitest';
import { createBudget } from '../src/budget.js';
import { RedisBudgetStore } from '../src/redis-store.js';
import { attemptInfo, callRecord, DOLLAR_PER_OUTPUT_TOKEN } from './support/attempt-info.js';
import { startRedis } from './support/start-redis.js';

// The ACL user docs/budgets-reference.md recommends is enough to run a budget.
it('runs a budget as an ACL user limited to its prefix and the commands the docs list', async () => {
  const redis = await startRedis();
  const admin = new Redis(redis.url);
  try {
    await admin.call(
      'ACL',
      'SETUSER',
      'budget',
      'on',
      '>budget-pass',
      '~switchboard:budget:*',
      '+@hash',
      '+@sortedset',
      '+time',
      '+pexpire',
      '+evalsha',
      '+eval',
      '+info',
      '+config|get',
      '+quit',
    );
    const warnings: string[] = [];
    const store = new RedisBudgetStore({
      url: `redis://budget:budget-pass@127.0.0.1:${redis.port}`,
      onWarning: (message) => warnings.push(message),
    });
    const budget = createBudget({
      store,
      scope: { name: 'acl-run', limitUsd: 5 },
      maxPricesOf: () => DOLLAR_PER_OUTPUT_TOKEN,
      onWarning: (message) => warnings.push(message),
    });
    const handle = await budget.beforeAttempt(attemptInfo({ maxTokens: 2 }));
    await handle.end({ record: callRecord(1), error: null, mayHaveBeenBilled: true });
    expect((await budget.usage())[0]).toMatchObject({ spentUsd: 1, reservedUsd: 0 });
    expect(warnings).toEqual([]);
    // Without the script's commands, the error says what the user lacks, in words.
    await admin.call('ACL', 'SETUSER', 'budget', '-@sortedset');
    await expect(budget.beforeAttempt(attemptInfo({ maxTokens: 1 }))).rejects.toMatchObject({
      reason: 'store_unreachable',
      message: expect.stringMatching(/the ACL user may not run a command of the budget's scripts \(NOPERM\)/),
    });
    // The refused call owes no settlement: the release sent behind it (retried, NOPERM) is not
    // waited for, and no warning speaks of a settlement of a call that never reserved.
    expect(await budget.idle({ timeoutMs: 200 })).toBe(true);
    expect(await budget.close({ timeoutMs: 200 })).toBe(true);
    expect(warnings.filter((warning) => /settlement/.test(warning))).toEqual([]);
    await store.close();
  } finally {
    admin.disconnect();
    await redis.stop();
  }
});
