import { nanoUsdOf, PRICES_VERSION, PriceBook, usdOfNano } from '@switchboard/prices';
import { describe, expect, it } from 'vitest';
import { checkJournalLine } from './check-journal-line.js';
import { JournalVerifier, verifyJournal } from './verify-journal.js';

const AT = '2026-11-23T08:00:00.000Z';
const usage = {
  prompt_tokens: 1200,
  completion_tokens: 300,
  prompt_cache_hit_tokens: 1024,
  prompt_cache_miss_tokens: 176,
};
// 1024 × 0.014 + 176 × 0.44 + 300 × 1.32 = 14.336 + 77.44 + 396 = 487.776 micro-dollars.
const FLASH_NANO = 487_776;

/** A journal line as the adapter and the journal write it for a call the shipped table priced. */
function line(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    v: 1,
    model: 'primary-flash',
    usage,
    costUsd: usdOfNano(FLASH_NANO),
    costNanoUsd: FLASH_NANO,
    pricedAs: 'primary-flash',
    priceSource: 'table',
    tariff: null,
    priceVersion: PRICES_VERSION,
    priceCheckedAt: '2026-11-22',
    at: AT,
    settlement: 'exact',
    error: null,
    ...overrides,
  };
}

function verify(lines: Record<string, unknown>[], book?: PriceBook) {
  const verifier = new JournalVerifier(book === undefined ? {} : { book });
  lines.forEach((fields, index) => {
    const checked = checkJournalLine(fields);
    if (typeof checked === 'string') throw new Error(checked);
    verifier.add(checked, index + 1);
  });
  return verifier.result();
}

describe('verifying a journal', () => {
  it('re-derives a line priced from the table to the nano-dollar', () => {
    expect(nanoUsdOf(new PriceBook().costOf('primary-flash', usage)?.costUsd ?? -1)).toBe(FLASH_NANO);
    expect(verify([line()])).toMatchObject({
      ok: true,
      lines: 1,
      verified: 1,
      differingCount: 0,
      unverifiableCount: 0,
    });
  });

  it('names a line whose cost is one nano-dollar off', () => {
    const result = verify([
      line(),
      line({ costNanoUsd: FLASH_NANO + 1, costUsd: usdOfNano(FLASH_NANO + 1) }),
    ]);
    expect(result.ok).toBe(false);
    expect(result.verified).toBe(1);
    expect(result.differing).toEqual([
      {
        line: 2,
        model: 'primary-flash',
        recordedNanoUsd: FLASH_NANO + 1,
        derivedNanoUsd: FLASH_NANO,
        why: `costNanoUsd ${FLASH_NANO + 1}, re-derived ${FLASH_NANO} from its usage at primary-flash's 0.014 / 0.44 / 1.32 per million tokens, @switchboard/prices ${PRICES_VERSION}`,
      },
    ]);
  });

  it('names a line whose costUsd and costNanoUsd disagree', () => {
    const result = verify([line({ costUsd: 0.0004877 })]);
    expect(result.differing[0]?.why).toBe(`costUsd 0.0004877 is not costNanoUsd ${FLASH_NANO} / 1e9`);
  });

  it('names as unverifiable, not wrong, a line priced by an entry the installed data no longer has', () => {
    const result = verify([
      line({ costNanoUsd: 400_000, costUsd: 0.0004, priceCheckedAt: '2026-06-01' }),
      line({ model: 'retired-model', pricedAs: 'retired-model' }),
      line({ costNanoUsd: 400_000, costUsd: 0.0004, priceCheckedAt: undefined, priceVersion: '0.0.1' }),
      line({ costNanoUsd: 400_000, costUsd: 0.0004, tariff: { entry: 'launch', band: null } }),
    ]);
    expect(result).toMatchObject({ ok: true, verified: 0, differingCount: 0, unverifiableCount: 4 });
    expect(result.unverifiable.map((entry) => entry.why)).toEqual([
      `priced by the entry for primary-flash checked 2026-06-01, which the installed data no longer has (its entry is checked 2026-11-22); the installed price re-derives 0.000487776 USD, recorded 0.0004`,
      `the installed price data has no price for retired-model at ${AT}: priced by an entry it no longer knows`,
      `priced with @switchboard/prices 0.0.1 by an undated entry, installed ${PRICES_VERSION}; the installed price re-derives 0.000487776 USD, recorded 0.0004`,
      `priced by the tariff "launch" of primary-flash, the installed data by a flat price; the installed price re-derives 0.000487776 USD, recorded 0.0004`,
    ]);
  });

  it('says an estimate is not re-derivable from usage, and counts lines without a cost', () => {
    const result = verify([
      line({ settlement: 'estimate', priceSource: 'estimate', usage: null }),
      line({ settlement: 'unsettled', costUsd: null, costNanoUsd: null, usage: null }),
      line({ costUsd: null, costNanoUsd: null, pricedAs: null, priceSource: null }),
    ]);
    expect(result).toMatchObject({
      ok: true,
      estimates: { count: 1, lines: [1] },
      withoutCost: 2,
      verified: 0,
    });
  });

  it('re-derives a provider-priced line from its usage.cost, and names one that is off', () => {
    const provider = { prompt_tokens: 10, completion_tokens: 5, cost: 0.0012 };
    const base = {
      usage: provider,
      priceSource: 'provider',
      pricedAs: 'gateway-model',
      model: 'gateway-model',
      priceCheckedAt: null,
    };
    const result = verify([
      line({ ...base, costUsd: 0.0012, costNanoUsd: 1_200_000 }),
      line({ ...base, costUsd: 0.0011, costNanoUsd: 1_100_000 }),
    ]);
    expect(result.verified).toBe(1);
    expect(result.differing).toMatchObject([
      { line: 2, recordedNanoUsd: 1_100_000, derivedNanoUsd: 1_200_000 },
    ]);
  });

  it('re-derives with the run’s own entries, tiers and dated tariffs included', () => {
    const book = new PriceBook({
      'lab-model': {
        tariffs: [
          {
            id: 'old',
            effectiveFrom: '2026-01-01T00:00:00Z',
            prices: { cacheHitPerM: 0, inputPerM: 1, outputPerM: 1 },
          },
          {
            id: 'new',
            effectiveFrom: '2026-11-01T00:00:00Z',
            prices: {
              cacheHitPerM: 0,
              inputPerM: 2,
              outputPerM: 2,
              tiers: [{ aboveInputTokens: 1000, cacheHitPerM: 0, inputPerM: 3, outputPerM: 3 }],
            },
          },
        ],
      },
    });
    const lab = (at: string, nano: number, entry: string) =>
      line({
        model: 'lab-model',
        pricedAs: 'lab-model',
        usage: { prompt_tokens: 1200, completion_tokens: 300 },
        at,
        costNanoUsd: nano,
        costUsd: usdOfNano(nano),
        tariff: { entry, band: null },
        priceCheckedAt: null,
      });
    // October: 1500 tokens at 1 per million; November: 1200 input past the 1000 tier, all at 3.
    const result = verify([lab('2026-10-01T00:00:00Z', 1_500_000, 'old'), lab(AT, 4_500_000, 'new')], book);
    expect(result).toMatchObject({ ok: true, verified: 2 });
    expect(verify([lab(AT, 3_000_000, 'new')], book).differing[0]?.derivedNanoUsd).toBe(4_500_000);
  });

  it('checks that no budget scope’s settled spend passes its limit', () => {
    const budget = { scope: 'triage', limitUsd: 0.001 };
    const result = verify([
      line({ budget }),
      line({ budget }),
      line({ budget, settlement: 'unsettled', costUsd: null, costNanoUsd: null, usage: null }),
    ]);
    expect(result.budgets).toEqual({ scopes: 1, overspent: [], invalidCount: 0, invalid: [] });
    const run = { scope: 'run', limitUsd: 1 };
    const over = verify([line({ budget }), line({ budgets: [run, budget] }), line({ extra: { budget } })]);
    expect(over.ok).toBe(false);
    expect(over.budgets).toEqual({
      scopes: 2,
      overspent: [{ scope: 'triage', limitNanoUsd: 1_000_000, spentNanoUsd: 3 * FLASH_NANO, line: 3 }],
      invalidCount: 0,
      invalid: [],
    });
  });

  it('names a budget entry whose limit or scope no budget can have instead of failing on it (issue 40.16)', () => {
    const limit = (limitUsd: unknown) => ({ budgets: [{ scope: 'run', limitUsd }] });
    const result = verify([
      line(limit(1e308)),
      line(limit(-1)),
      line(limit('x')),
      line(limit(9.1e6)),
      line({ budgets: [{ limitUsd: 1 }] }),
      line(limit(null)),
      line(limit(9e6)),
    ]);
    expect(result.ok).toBe(false);
    const expected = 'expected null or a number of USD from 0 to 9,007,199), so its spend cannot be checked';
    expect(result.budgets).toEqual({
      scopes: 1,
      overspent: [],
      invalidCount: 5,
      invalid: [
        { line: 1, scope: 'run', why: `budget scope "run": limitUsd 1e+308 is not a limit (${expected}` },
        { line: 2, scope: 'run', why: `budget scope "run": limitUsd -1 is not a limit (${expected}` },
        { line: 3, scope: 'run', why: `budget scope "run": limitUsd "x" is not a limit (${expected}` },
        { line: 4, scope: 'run', why: `budget scope "run": limitUsd 9100000 is not a limit (${expected}` },
        { line: 5, scope: null, why: 'a budget entry without a scope name (scope undefined)' },
      ],
    });
    // The lines' costs are still checked.
    expect(result.verified).toBe(7);
  });

  it('reads a journal file, counting the lines it skips', async () => {
    const text = `${JSON.stringify(line())}\nnot json\n`;
    const issues: string[] = [];
    async function* source() {
      yield text;
    }
    const result = await verifyJournal(source(), {
      name: 'run.jsonl',
      onIssue: (issue) => issues.push(issue.message),
    });
    expect(result).toMatchObject({ ok: true, lines: 1, verified: 1, skipped: 1 });
    expect(issues).toHaveLength(1);
  });
});
