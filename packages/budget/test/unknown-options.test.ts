// In plain JavaScript a typo in an option would remove a protection without a word:
// every options object of the package refuses a key it does not know, naming it and
// the nearest known one.
import { describe, expect, it } from 'vitest';
import { createBudget } from '../src/budget.js';
import { MemoryBudgetStore } from '../src/memory-store.js';
import { RedisBudgetStore } from '../src/redis-store.js';

const make = (options: unknown) => () => createBudget(options as never);

describe('unknown option keys', () => {
  it('are refused in the scope and every nested scope, with the nearest known name', () => {
    expect(make({ scope: { name: 'x', limitUSD: 1 } })).toThrow(
      new TypeError('scope: unknown option `limitUSD`; did you mean `limitUsd`?'),
    );
    expect(make({ scope: { name: 'x', maxInflight: 2 } })).toThrow(
      'scope: unknown option `maxInflight`; did you mean `maxInFlight`?',
    );
    const budget = createBudget({ scope: { name: 'x', limitUsd: 1 } });
    expect(() => budget.child({ name: 'y', limitUsd: 1, maxInFlght: 3 } as never)).toThrow(
      'scope: unknown option `maxInFlght`; did you mean `maxInFlight`?',
    );
  });

  it("are refused in a role's limits, which take no name", () => {
    expect(make({ scope: { name: 'x' }, roles: { judge: { limit: 1 } } })).toThrow(
      'roles.judge: unknown option `limit`; did you mean `limitUsd`?',
    );
    expect(make({ scope: { name: 'x' }, roles: { judge: { name: 'judge', limitUsd: 1 } } })).toThrow(
      'roles.judge: unknown option `name`; known: `limitUsd`, `maxInFlight`',
    );
  });

  it('are refused among the options of createBudget and its fallback', () => {
    expect(make({ scope: { name: 'x' }, maxOutputToken: 100 })).toThrow(
      'createBudget options: unknown option `maxOutputToken`; did you mean `maxOutputTokens`?',
    );
    expect(make({ scope: { name: 'x' }, waitForSettlement: false })).toThrow(
      'createBudget options: unknown option `waitForSettlement`; did you mean `waitForSettlements`?',
    );
    expect(make({ scope: { name: 'x' }, budget: 5 })).toThrow(
      /^createBudget options: unknown option `budget`; known: `scope`, `store`, /,
    );
    expect(make({ scope: { name: 'x' }, fallback: { shares: 0.5 } })).toThrow(
      'fallback: unknown option `shares`; did you mean `share`?',
    );
  });

  it('are refused by the stores', () => {
    expect(() => new RedisBudgetStore({ url: 'redis://127.0.0.1:1', commandTimeout: 5 } as never)).toThrow(
      'RedisBudgetStore options: unknown option `commandTimeout`; did you mean `commandTimeoutMs`?',
    );
    expect(() => new RedisBudgetStore({ uri: 'redis://127.0.0.1:1' } as never)).toThrow(
      'RedisBudgetStore options: unknown option `uri`; did you mean `url`?',
    );
    expect(() => new MemoryBudgetStore({ retention: 5 } as never)).toThrow(
      'MemoryBudgetStore options: unknown option `retention`; did you mean `retentionMs`?',
    );
  });

  it('show a hostile key escaped and cut short', () => {
    expect(make({ scope: { name: 'x', [`a\n${'b'.repeat(100)}`]: 1 } })).toThrow(
      /^scope: unknown option `a\\nb{62}…`; known: /,
    );
  });

  it('accept every known option', () => {
    const budget = createBudget({
      scope: { name: 'ok', limitUsd: 1, maxInFlight: 2 },
      store: new MemoryBudgetStore({ retentionMs: 1000 }),
      ownsStore: true,
      roles: { judge: { limitUsd: 1, maxInFlight: 1 } },
      maxOutputTokens: 100,
      maxCostUsdOf: () => null,
      leaseTtlMs: 1000,
      slotWaitMs: 10,
      waitForSettlements: true,
      fallback: { share: 0.5 },
      onLedgerLost: 'refuse',
      onWarning: () => {},
    });
    expect(budget.scope).toBe('ok');
  });
});
