// Issue 30: a budget with fitMaxTokens lowers a call's max_tokens so its worst case fits what
// is left, down to a floor, instead of refusing it; off by default. On the wire against the
// emulator, and on every store (the fit is computed from the store's answer; the store's
// conditional reserve keeps it under the limit when other calls race for the room).
import { type CallRecord, ChatAdapter, OpenAITransport } from '@switchboard/adapter';
import { describe, expect, it } from 'vitest';
import { type Budget, type BudgetOptions, createBudget } from '../src/budget.js';
import type { BudgetError } from '../src/budget-error.js';
import type { BudgetStore } from '../src/budget-store.js';
import { attemptInfo, callRecord, DOLLAR_PER_OUTPUT_TOKEN } from './support/attempt-info.js';
import { emulatorSuite } from './support/emulator-suite.js';
import { memoryStores, postgresStores, redisStores } from './support/store-factories.js';

const KEY = 'sk-fit-test';
const MODEL = 'primary-flash';
const fittable = { canLowerMaxTokens: true } as const;

describe.each([memoryStores(), redisStores(), postgresStores()])('fitting max_tokens on $name', (factory) => {
  const suite = emulatorSuite(factory, KEY);
  let runs = 0;

  /** A budget where a call's worst case is its max_tokens in USD (prompts free, $1 an output token). */
  function budgetOn(store: BudgetStore, options: Partial<BudgetOptions> = {}): Budget {
    runs += 1;
    return createBudget({
      store,
      scope: { name: `fit-${runs}`, limitUsd: 10 },
      maxPricesOf: () => DOLLAR_PER_OUTPUT_TOKEN,
      onWarning: () => {},
      ...options,
    });
  }

  function adapterWith(budget: Budget): ChatAdapter {
    const transport = new OpenAITransport({ apiKey: KEY, baseUrl: suite.emulator.url, maxAttempts: 1 });
    return new ChatAdapter(transport, { observers: [budget] });
  }

  /** The max_tokens of each request the emulator received. */
  function sentCaps(): unknown[] {
    return suite.emulator.requests.map((request) => (request.body as { max_tokens?: unknown }).max_tokens);
  }

  /** A call capped at 30 output tokens through the budget. */
  function askFor30(budget: Budget) {
    return adapterWith(budget).complete({
      model: MODEL,
      messages: [{ role: 'user', content: 'hi' }],
      maxTokens: 30,
    });
  }

  /** Spends `usd` in the budget's scopes with a settled call. */
  async function spend(budget: Budget, usd: number): Promise<void> {
    const handle = await budget.beforeAttempt(attemptInfo({ maxTokens: usd }));
    await handle.end({ record: callRecord(usd), error: null, mayHaveBeenBilled: true });
  }

  it('sends the call with the cap that fits, and records from what it was lowered', async () => {
    const budget = budgetOn(factory.create(), { fitMaxTokens: { minTokens: 4 } });
    await spend(budget, 3);
    const response = await adapterWith(budget).complete({
      model: MODEL,
      messages: [{ role: 'user', content: 'Summarise the change.' }],
      maxTokens: 30,
    });
    // 10 − 3 spent: the highest cap whose worst case fits is 7.
    expect(sentCaps()).toEqual([7]);
    const record = response.calls[0] as CallRecord;
    expect(record).toMatchObject({ maxTokens: 7, maxTokensLowered: { from: 30, to: 7 } });
    expect(record.budgets).toEqual([{ scope: budget.scope, limitUsd: 10 }]);
    expect(record.usage?.completion_tokens).toBeLessThanOrEqual(7);
    await budget.idle();
    const [usage] = await budget.usage();
    expect(usage?.spentNanoUsd).toBeLessThanOrEqual(10e9);
    expect(usage?.reservedNanoUsd).toBe(0);
    await budget.close();
  });

  it('is off by default: the call is refused and nothing is sent', async () => {
    const budget = budgetOn(factory.create());
    await spend(budget, 3);
    const refused = askFor30(budget);
    await expect(refused).rejects.toMatchObject({ kind: 'budget', reason: 'spend' });
    expect(suite.emulator.requests).toHaveLength(0);
    await budget.close();
  });

  it('refuses, as without fitting, a call that does not fit even at its floor', async () => {
    const budget = budgetOn(factory.create(), { fitMaxTokens: { minTokens: 8 } });
    await spend(budget, 3);
    const refused = askFor30(budget);
    await expect(refused).rejects.toMatchObject({ kind: 'budget', reason: 'spend' });
    await expect(refused).rejects.toThrow(
      /this call needs up to \$30\.000000 at its cap of 30 output tokens; not even with max_tokens lowered to 8 \(fitMaxTokens\.minTokens\), up to \$8\.000000, does it fit$/,
    );
    expect(suite.emulator.requests).toHaveLength(0);
    await budget.close();
  });

  it("names the call's own cap and cost, and the floor's cost, when a fitted call then lost the room to another", async () => {
    const store = factory.create();
    // Once armed: between the refusal the call is fitted to (7 tokens, the $7 left) and its second
    // try, another call takes $5; the fitted cap no longer fits, nor does the floor of 4 tokens ($4).
    let tries = -1;
    const racing = new Proxy(store, {
      get(target, name) {
        if (name !== 'acquire') {
          const value = Reflect.get(target, name);
          return typeof value === 'function' ? value.bind(target) : value;
        }
        return async (request: Parameters<BudgetStore['acquire']>[0]) => {
          if (tries >= 0) tries += 1;
          if (tries === 2) {
            const other = { ...request, leaseId: `${request.leaseId}-other`, amountNanoUsd: 5e9 };
            expect((await target.acquire(other)).granted).toBe(true);
          }
          return target.acquire(request);
        };
      },
    });
    const budget = budgetOn(racing, { fitMaxTokens: { minTokens: 4 }, waitForSettlements: false });
    await spend(budget, 3);
    await budget.idle();
    tries = 0;
    const refused = Promise.resolve(budget.beforeAttempt(attemptInfo({ ...fittable, maxTokens: 30 })));
    await expect(refused).rejects.toMatchObject({ reason: 'reserved', requestedUsd: 30 });
    expect(tries).toBe(2);
    const { message } = (await refused.catch((error: unknown) => error)) as BudgetError;
    expect(message).toContain(
      'spent $3.000000, reserved $5.000000 by calls in flight, this call needs up to $30.000000 at its cap of 30 output tokens; fitted to 7 output tokens (up to $7.000000); it fits once calls in flight settle',
    );
    expect(message).toMatch(
      /; not even with max_tokens lowered to 4 \(fitMaxTokens\.minTokens\), up to \$4\.000000, does it fit$/,
    );
    await budget.close();
  });

  it('gives a call without max_tokens the fitted cap, from the assumed maxOutputTokens', async () => {
    const budget = budgetOn(factory.create(), { fitMaxTokens: { minTokens: 1 }, maxOutputTokens: 50 });
    await spend(budget, 4);
    const response = await adapterWith(budget).complete({
      model: MODEL,
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(sentCaps()).toEqual([6]);
    expect(response.calls[0]?.maxTokensLowered).toEqual({ from: null, to: 6 });
    await budget.close();
  });

  it('fits per role: a role’s own option wins over the budget’s, false turns it off', async () => {
    const budget = budgetOn(factory.create(), {
      fitMaxTokens: { minTokens: 1 },
      roles: { judge: { limitUsd: 4, fitMaxTokens: { minTokens: 2 } }, triage: { fitMaxTokens: false } },
    });
    const judge = await budget.beforeAttempt(attemptInfo({ ...fittable, role: 'judge', maxTokens: 9 }));
    expect(judge.maxTokens).toBe(4);
    expect((judge as { budgets?: unknown }).budgets).toEqual([
      { scope: budget.scope, limitUsd: 10 },
      { scope: `${budget.scope}/judge`, limitUsd: 4 },
    ]);
    await judge.end({ record: callRecord(4), error: null, mayHaveBeenBilled: true });
    await expect(
      Promise.resolve(budget.beforeAttempt(attemptInfo({ ...fittable, role: 'judge', maxTokens: 9 }))),
    ).rejects.toMatchObject({ reason: 'spend', scope: `${budget.scope}/judge` });
    await expect(
      Promise.resolve(budget.beforeAttempt(attemptInfo({ ...fittable, role: 'triage', maxTokens: 9 }))),
    ).rejects.toMatchObject({ reason: 'spend' });
    const other = await budget.beforeAttempt(attemptInfo({ ...fittable, maxTokens: 9 }));
    expect(other.maxTokens).toBe(6);
    await budget.close();
  });

  it('does not fit where the adapter could not send the lower cap', async () => {
    const budget = budgetOn(factory.create(), { fitMaxTokens: { minTokens: 1 } });
    await spend(budget, 3);
    await expect(Promise.resolve(budget.beforeAttempt(attemptInfo({ maxTokens: 9 })))).rejects.toMatchObject({
      reason: 'spend',
    });
    await budget.close();
  });

  it('waits for settlements at the full cap rather than shorten a call that fits once they settle', async () => {
    const budget = budgetOn(factory.create(), { fitMaxTokens: { minTokens: 1 } });
    const held = await budget.beforeAttempt(attemptInfo({ ...fittable, maxTokens: 6 }));
    const waiting = Promise.resolve(budget.beforeAttempt(attemptInfo({ ...fittable, maxTokens: 8 })));
    await new Promise((resolve) => setTimeout(resolve, 30));
    await held.end({ record: callRecord(1), error: null, mayHaveBeenBilled: true });
    const handle = await waiting;
    expect(handle.maxTokens).toBeUndefined();
    await handle.end({ record: callRecord(1), error: null, mayHaveBeenBilled: true });
    await budget.close();
  });

  it('with waitForSettlements false, or after a wait in vain, fits to what is free now', async () => {
    const eager = budgetOn(factory.create(), { fitMaxTokens: { minTokens: 1 }, waitForSettlements: false });
    const held = await eager.beforeAttempt(attemptInfo({ ...fittable, maxTokens: 6 }));
    const fitted = await eager.beforeAttempt(attemptInfo({ ...fittable, maxTokens: 8 }));
    expect(fitted.maxTokens).toBe(4);
    await held.end({ record: null, error: new Error('x'), mayHaveBeenBilled: false });
    await fitted.end({ record: null, error: new Error('x'), mayHaveBeenBilled: false });
    await eager.close();

    const patient = budgetOn(factory.create(), { fitMaxTokens: { minTokens: 1 }, slotWaitMs: 20 });
    const holding = await patient.beforeAttempt(attemptInfo({ ...fittable, maxTokens: 6 }));
    const late = await patient.beforeAttempt(attemptInfo({ ...fittable, maxTokens: 8 }));
    expect(late.maxTokens).toBe(4);
    await holding.end({ record: null, error: new Error('x'), mayHaveBeenBilled: false });
    await late.end({ record: null, error: new Error('x'), mayHaveBeenBilled: false });
    await patient.close();
  });

  it('never reserves past the limit when many calls are fitted at once', async () => {
    const budget = budgetOn(factory.create(), { fitMaxTokens: { minTokens: 1 }, waitForSettlements: false });
    const outcomes = await Promise.allSettled(
      Array.from({ length: 16 }, () =>
        Promise.resolve(budget.beforeAttempt(attemptInfo({ ...fittable, maxTokens: 3 }))),
      ),
    );
    const caps = outcomes.flatMap((outcome) =>
      outcome.status === 'fulfilled' ? [outcome.value.maxTokens ?? 3] : [],
    );
    const refused = outcomes.flatMap((outcome) =>
      outcome.status === 'rejected' ? [(outcome.reason as BudgetError).reason] : [],
    );
    // Three at their own cap (9), one fitted to the last dollar, the rest refused: never past 10.
    expect(caps.reduce((sum, cap) => sum + cap, 0)).toBe(10);
    expect(new Set(refused)).toEqual(new Set(['reserved']));
    const [usage] = await budget.usage();
    expect(usage?.reservedNanoUsd).toBeLessThanOrEqual(10e9);
    await budget.close();
  });
});

describe('fitMaxTokens options', () => {
  const scope = { name: 'options', limitUsd: 1 };
  it('are checked, and unknown keys refused with the nearest', () => {
    expect(() => createBudget({ scope, fitMaxTokens: { minToken: 5 } as never })).toThrow(
      'fitMaxTokens: unknown option `minToken`; did you mean `minTokens`?',
    );
    expect(() => createBudget({ scope, fitMaxTokens: { minTokens: 0 } })).toThrow(RangeError);
    expect(() => createBudget({ scope, fitMaxToken: { minTokens: 5 } } as never)).toThrow(
      'did you mean `fitMaxTokens`?',
    );
    expect(() => createBudget({ scope, roles: { judge: { fitMaxTokens: { minTokens: 1.5 } } } })).toThrow(
      'roles.judge.fitMaxTokens.minTokens must be an integer >= 1, got 1.5',
    );
    expect(() => createBudget({ scope, roles: { judge: { fitMaxTokns: false } as never } })).toThrow(
      'did you mean `fitMaxTokens`?',
    );
  });
});
