import { describe, expectTypeOf, it } from 'vitest';
import type { CostModel } from './cost-model.js';
import type { UsageEntry } from './usage-entry.js';

// Type-level (checked by `tsc --noEmit`, the package's typecheck): a cost model is handed the
// reply's usage with its type, so one written inline reads the token fields without a cast.
describe('CostModel.cost', () => {
  it('takes the usage entry, and a cost model written inline reads its fields', () => {
    expectTypeOf<Parameters<CostModel['cost']>[0]>().toEqualTypeOf<UsageEntry>();
    const perToken: CostModel = { cost: (usage) => (usage.prompt_tokens ?? 0) * 1e-6 };
    // One that checks an unknown value itself still fits.
    const defensive: CostModel = { cost: (usage: unknown) => (usage === null ? null : 0) };
    expectTypeOf(perToken.cost).returns.toEqualTypeOf<number | null>();
    expectTypeOf(defensive).toMatchTypeOf<CostModel>();
  });
});
