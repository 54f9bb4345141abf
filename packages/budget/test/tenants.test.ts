// Tenants: a call that carries a tenant reserves in `<scope>/<tenant>` too, made on its first use with
// the `tenants` template (limits, window), beside its role's scope. Customers cannot spend each other's
// money; a tenant named as a role is refused; through a real ChatAdapter's forTenant to the emulator;
// and a process serving 100,000 tenants keeps its memory bounded (their figures live in the store).
import { type CallRecord, ChatAdapter, OpenAITransport } from '@switchboard/adapter';
import { type Emulator, startEmulator } from '@switchboard/emulator';
import { costOf, priceOf } from '@switchboard/prices';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBudget } from '../src/budget.js';
import { BudgetError } from '../src/budget-error.js';
import type { AcquireRequest, AcquireResult, BudgetStore, ScopeCounters } from '../src/budget-store.js';
import { attemptInfo, callRecord, DOLLAR_PER_OUTPUT_TOKEN } from './support/attempt-info.js';
import { heapAfterGc } from './support/heap-after-gc.js';

function serviceBudget(store?: BudgetStore) {
  return createBudget({
    ...(store === undefined ? {} : { store }),
    scope: { name: 'svc', limitUsd: 20, window: 'day' },
    roles: { judge: { limitUsd: 5 } },
    tenants: { limitUsd: 1, maxInFlight: 2, window: 'day' },
    maxPricesOf: () => DOLLAR_PER_OUTPUT_TOKEN,
    waitForSettlements: false,
    onWarning: () => {},
  });
}

describe('tenants', () => {
  it("reserves in the tenant's scope too; a tenant out of money leaves the others theirs", async () => {
    const budget = serviceBudget();
    const acme = await budget.beforeAttempt(attemptInfo({ maxTokens: 1, tenant: 'acme', role: 'judge' }));
    expect(acme.budgets?.map((scope) => scope.scope)).toEqual(['svc', 'svc/judge', 'svc/acme']);
    await acme.end({ record: callRecord(0.75), error: null, mayHaveBeenBilled: true });
    const refusal = await Promise.resolve(
      budget.beforeAttempt(attemptInfo({ maxTokens: 1, tenant: 'acme' })),
    ).catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(BudgetError);
    expect(refusal).toMatchObject({ reason: 'spend', scope: 'svc/acme', limitUsd: 1, spentUsd: 0.75 });
    expect((refusal as BudgetError).retryAfterMs).toBeGreaterThan(0);
    const globex = await budget.beforeAttempt(attemptInfo({ maxTokens: 1, tenant: 'globex' }));
    expect(globex.budgets?.map((scope) => scope.scope)).toEqual(['svc', 'svc/globex']);
    await globex.end({ record: callRecord(1), error: null, mayHaveBeenBilled: true });
    const usage = await budget.usage(null, 'acme');
    expect(usage.map((scope) => [scope.scope, scope.spentUsd, scope.limitUsd, scope.maxInFlight])).toEqual([
      ['svc', 1.75, 20, null],
      ['svc/acme', 0.75, 1, 2],
    ]);
    expect(usage[1]?.window).not.toBeNull();
    // A call without a tenant reserves in no tenant's scope.
    const plain = await budget.beforeAttempt(attemptInfo({ maxTokens: 1 }));
    expect(plain.budgets?.map((scope) => scope.scope)).toEqual(['svc']);
  });

  it('refuses a tenant named as a role, or a tenant id that is no scope name, naming it', async () => {
    const budget = serviceBudget();
    await expect(Promise.resolve(budget.beforeAttempt(attemptInfo({ tenant: 'judge' })))).rejects.toThrow(
      /tenant "judge" is also the name of a role of this budget \(roles\.judge\)/,
    );
    await expect(Promise.resolve(budget.beforeAttempt(attemptInfo({ tenant: 'a/b' })))).rejects.toThrow(
      /tenant\.name must be a non-empty string without/,
    );
    expect(() => createBudget({ scope: { name: 's' }, tenants: { limitUsd: -1 } })).toThrow(
      /tenants\.limitUsd must be a number/,
    );
    expect(() => createBudget({ scope: { name: 's' }, tenants: { name: 'x' } as never })).toThrow(
      /tenants takes no name/,
    );
  });

  it('a process serving 100,000 tenants keeps its memory bounded', async () => {
    // A store that keeps nothing here, as a shared store keeps the figures elsewhere: what grows is the budget's own.
    const remote: BudgetStore = {
      acquire: (_request: AcquireRequest): AcquireResult => ({ granted: true }),
      settle: () => true,
      renew: () => [],
      counters: (scopes) =>
        scopes.map(
          (): ScopeCounters => ({
            spentNanoUsd: 0,
            reservedNanoUsd: 0,
            inFlight: 0,
            unsettledNanoUsd: 0,
            unsettledCalls: 0,
          }),
        ),
    };
    const budget = serviceBudget(remote);
    const serve = async (from: number, count: number) => {
      for (let tenant = from; tenant < from + count; tenant += 1) {
        const handle = await budget.beforeAttempt(
          attemptInfo({ maxTokens: 1, tenant: `customer-${tenant}` }),
        );
        await handle.end({ record: callRecord(0.001), error: null, mayHaveBeenBilled: true });
      }
    };
    await serve(0, 10_000);
    const after10k = await heapAfterGc();
    await serve(10_000, 90_000);
    const after100k = await heapAfterGc();
    // 90,000 more tenants: a few hundred bytes each if they were kept; bounded, the heap stays within 5 MB.
    expect(after100k - after10k).toBeLessThan(5 * 1024 * 1024);
  });
});

describe('tenants through a real ChatAdapter (forTenant) to the emulator', () => {
  const KEY = 'sk-tenant-test';
  const MODEL = 'primary-flash';
  let emulator: Emulator;
  beforeAll(async () => {
    emulator = await startEmulator({ key: KEY });
  });
  afterAll(() => emulator?.close());

  it("charges each customer's calls to its scope and names the tenant on the record", async () => {
    const budget = createBudget({
      scope: { name: 'svc', limitUsd: 10, window: 'day' },
      tenants: { limitUsd: 0.5, window: 'day' },
      maxOutputTokens: 64,
      onWarning: () => {},
    });
    const records: CallRecord[] = [];
    const adapter = new ChatAdapter(new OpenAITransport({ apiKey: KEY, baseUrl: emulator.url }), {
      observers: [budget, { afterCall: (record: CallRecord) => records.push(record) }],
      endpoint: { cost: (usage: unknown) => costOf(priceOf(MODEL), usage) },
    });
    await adapter
      .forTenant('acme')
      .complete({ model: MODEL, messages: [{ role: 'user', content: 'hi' }], maxTokens: 16 });
    expect(records[0]?.tenant).toBe('acme');
    expect(records[0]?.budgets?.map((scope) => scope.scope)).toEqual(['svc', 'svc/acme']);
    const [, acme] = await budget.usage(null, 'acme');
    expect(acme?.spentNanoUsd).toBe(records[0]?.costNanoUsd);
    const [, globex] = await budget.usage(null, 'globex');
    expect(globex?.spentUsd).toBe(0);
  });
});
