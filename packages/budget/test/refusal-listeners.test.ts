import { describe, expect, it } from 'vitest';
import { type BudgetOptions, createBudget } from '../src/budget.js';
import type { BudgetError } from '../src/budget-error.js';
import { attemptInfo, callRecord, DOLLAR_PER_OUTPUT_TOKEN } from './support/attempt-info.js';

function budgetOf(options: Partial<BudgetOptions> = {}) {
  return createBudget({
    scope: { name: 'service', limitUsd: 5 },
    maxPricesOf: () => DOLLAR_PER_OUTPUT_TOKEN,
    slotWaitMs: 0,
    onWarning: () => {},
    ...options,
  });
}

describe('Budget.onRefusal', () => {
  it('tells each listener every refusal of the budget tree, with its reason and scope, before the call is rejected', async () => {
    const budget = budgetOf({ roles: { judge: { limitUsd: 3, maxInFlight: 1 } } });
    const told: string[] = [];
    budget.onRefusal((error) => told.push(`${error.reason} ${error.scope}`));
    // Out of money in the root.
    await expect(budget.beforeAttempt(attemptInfo({ maxTokens: 6 }))).rejects.toMatchObject({
      reason: 'spend',
    });
    // The role's one slot taken, and no wait allowed.
    const held = await budget.beforeAttempt(attemptInfo({ role: 'judge', maxTokens: 1 }));
    const rejected = budget.beforeAttempt(attemptInfo({ role: 'judge', maxTokens: 1 }));
    expect(told).toHaveLength(1);
    await expect(rejected).rejects.toMatchObject({ reason: 'in_flight', scope: 'service/judge' });
    await held.end({ record: callRecord(0.25), error: null, mayHaveBeenBilled: true });
    // A child's refusal reaches the listener of the budget it came from.
    const child = budget.child({ name: 'batch-7', limitUsd: 0.5 });
    await expect(child.beforeAttempt(attemptInfo({ maxTokens: 1 }))).rejects.toMatchObject({
      reason: 'spend',
    });
    expect(told).toEqual(['spend service', 'in_flight service/judge', 'spend service/batch-7']);
  });

  it('is told the BudgetError itself, is not told of a cancelled call, and cannot change what the call gets', async () => {
    const budget = budgetOf();
    const errors: BudgetError[] = [];
    budget.onRefusal(() => {
      throw new Error('a listener that fails');
    });
    budget.onRefusal((error) => errors.push(error));
    const refusal = await Promise.resolve(budget.beforeAttempt(attemptInfo({ maxTokens: 6 }))).catch(
      (error: unknown) => error,
    );
    expect(refusal).toMatchObject({ reason: 'spend' });
    expect(errors).toEqual([refusal]);
    expect(errors[0]).toBe(refusal);
    const controller = new AbortController();
    controller.abort();
    await expect(
      budget.beforeAttempt(attemptInfo({ maxTokens: 1, signal: controller.signal })),
    ).rejects.toMatchObject({ kind: 'aborted' });
    expect(errors).toHaveLength(1);
    // A grant from a store that answers at once still comes back without a promise.
    const granted = budget.beforeAttempt(attemptInfo({ maxTokens: 1 }));
    expect(granted).not.toBeInstanceOf(Promise);
  });

  it('stops telling a listener once removed, and tells one added twice twice', async () => {
    const budget = budgetOf();
    let told = 0;
    const listener = () => {
      told += 1;
    };
    const remove = budget.onRefusal(listener);
    const removeAgain = budget.onRefusal(listener);
    await expect(budget.beforeAttempt(attemptInfo({ maxTokens: 6 }))).rejects.toThrow();
    expect(told).toBe(2);
    remove();
    remove();
    await expect(budget.beforeAttempt(attemptInfo({ maxTokens: 6 }))).rejects.toThrow();
    expect(told).toBe(3);
    removeAgain();
    await expect(budget.beforeAttempt(attemptInfo({ maxTokens: 6 }))).rejects.toThrow();
    expect(told).toBe(3);
    expect(() => budget.onRefusal('log' as unknown as () => void)).toThrow(
      new TypeError('listener must be a function (error) => void'),
    );
  });

  it('names its roles', () => {
    expect(budgetOf({ roles: { judge: { limitUsd: 1 }, detector: {} } }).roles).toEqual([
      'judge',
      'detector',
    ]);
    expect(budgetOf().roles).toEqual([]);
  });
});
