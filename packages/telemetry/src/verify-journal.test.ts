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

let calls = 0;

/** A journal line as the adapter and the journal write it for a call the shipped table priced (numbered by `verify`). */
function line(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  calls += 1;
  return {
    v: 2,
    callId: `call-${calls}`,
    host: 'worker-1',
    pid: 4242,
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

/**
 * Verifies the lines, in order; each is numbered by its place (`seq`) unless it says its own
 * (`seq: undefined` for none); `null` is an unreadable line.
 */
function verify(
  lines: (Record<string, unknown> | null)[],
  book?: PriceBook,
  options: { allowUnverifiable?: boolean } = {},
) {
  const verifier = new JournalVerifier({ ...(book === undefined ? {} : { book }), ...options });
  lines.forEach((fields, index) => {
    if (fields === null) {
      verifier.skip();
      return;
    }
    const checked = checkJournalLine('seq' in fields ? fields : { ...fields, seq: index + 1 });
    if (typeof checked === 'string') throw new Error(checked);
    verifier.add(checked, index + 1);
  });
  return verifier.result();
}

const NO_BUDGET_FINDINGS = {
  scopes: 0,
  overspent: [],
  invalidCount: 0,
  invalid: [],
  changedCount: 0,
  changed: [],
  unchargedCount: 0,
  uncharged: [],
};

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
    // Not wrong, but not verified either: accepted only when asked to.
    expect(result).toMatchObject({ ok: false, verified: 0, differingCount: 0, unverifiableCount: 4 });
    expect(result.unverifiable.map((entry) => entry.why)).toEqual([
      `priced by the entry for primary-flash checked 2026-06-01, which the installed data no longer has (its entry is checked 2026-11-22); the installed price re-derives 0.000487776 USD, recorded 0.0004`,
      `the installed price data has no price for retired-model at ${AT}: priced by an entry it no longer knows`,
      `priced with @switchboard/prices 0.0.1 by an undated entry, installed ${PRICES_VERSION}; the installed price re-derives 0.000487776 USD, recorded 0.0004`,
      `priced by the tariff "launch" of primary-flash, the installed data by a flat price; the installed price re-derives 0.000487776 USD, recorded 0.0004`,
    ]);
  });

  it('says an estimate is not re-derivable from usage, and counts lines without a cost', () => {
    const failed = { kind: 'timeout', status: null, degradation: false };
    const lines = [
      line({ settlement: 'estimate', priceSource: 'estimate', usage: null }),
      line({ settlement: 'unsettled', costUsd: null, costNanoUsd: null, usage: null, error: failed }),
      line({ costUsd: null, costNanoUsd: null, pricedAs: null, priceSource: null }),
    ];
    const result = verify(lines);
    expect(result).toMatchObject({
      ok: false,
      estimates: { count: 1, lines: [1] },
      withoutCost: 1,
      verified: 0,
      unverifiableCount: 1,
    });
    // A reply with usage and no cost: unpriced, or its cost removed.
    expect(result.unverifiable).toEqual([
      {
        line: 3,
        model: 'primary-flash',
        why: 'a reply with usage and no cost, though the installed data prices it at 0.000487776 USD: it ran unpriced, or its cost was removed',
      },
    ]);
    expect(verify(lines, undefined, { allowUnverifiable: true })).toMatchObject({
      ok: true,
      allowUnverifiable: true,
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
    expect(result.budgets).toEqual({ ...NO_BUDGET_FINDINGS, scopes: 1 });
    const run = { scope: 'run', limitUsd: 1 };
    const over = verify([line({ budget }), line({ budgets: [run, budget] }), line({ extra: { budget } })]);
    expect(over.ok).toBe(false);
    expect(over.budgets).toEqual({
      ...NO_BUDGET_FINDINGS,
      scopes: 2,
      overspent: [{ scope: 'triage', limitNanoUsd: 1_000_000, spentNanoUsd: 3 * FLASH_NANO, line: 3 }],
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
      ...NO_BUDGET_FINDINGS,
      scopes: 1,
      // One process names the scope without a limit, then with one (line 7): one of them was changed.
      changedCount: 1,
      changed: [
        {
          line: 7,
          scope: 'run',
          why: 'budget scope "run": limitUsd 9000000 here, null on line 6 of the same process: a scope\'s limit does not change while its budget runs, so one of them was changed',
        },
      ],
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
    const text = `${JSON.stringify({ ...line(), seq: 1 })}\nnot json\n`;
    const issues: string[] = [];
    async function* source() {
      yield text;
    }
    const result = await verifyJournal(source(), {
      name: 'run.jsonl',
      onIssue: (issue) => issues.push(issue.message),
    });
    // An unreadable line's call is in no figure: it cannot be verified.
    expect(result).toMatchObject({ ok: false, lines: 1, verified: 1, skipped: 1 });
    expect(issues).toHaveLength(1);
  });
});

/** `count` lines of one writer, as its journal numbered them. */
function run(count: number, fields: Record<string, unknown> = {}): Record<string, unknown>[] {
  return Array.from({ length: count }, (_, index) => line({ seq: index + 1, ...fields }));
}

describe('verifying a journal: lines missing, repeated or out of order (issue 40.8)', () => {
  it('passes a writer’s lines 1, 2, 3…, two writers interleaved, and a process id used again later', () => {
    const first = run(3);
    const other = run(2, { host: 'worker-2' });
    const again = run(2, { at: '2026-11-23T09:00:00.000Z' });
    const result = verify([first[0], other[0], first[1], first[2], other[1], ...again] as Record<
      string,
      unknown
    >[]);
    expect(result).toMatchObject({ ok: true, verified: 7 });
    expect(result.sequence).toMatchObject({ writers: 2, findingCount: 0, missing: 0, duplicates: 0 });
  });

  it('names a line dropped: the number no line has, and where', () => {
    const lines = run(5);
    const result = verify([...lines.slice(0, 2), ...lines.slice(3)]);
    expect(result.ok).toBe(false);
    expect(result.sequence).toMatchObject({ missing: 1, findingCount: 1 });
    expect(result.sequence.findings).toEqual([
      {
        kind: 'missing',
        line: 3,
        host: 'worker-1',
        pid: 4242,
        seq: 3,
        why: 'seq 3 of host "worker-1" pid 4242 is in no line (between lines 2 and 3)',
      },
    ]);
    const headless = verify(run(3).slice(1));
    expect(headless.sequence.findings[0]?.why).toBe(
      'seq 1 of host "worker-1" pid 4242 is in no line (before line 1, the writer\'s first in the file)',
    );
  });

  it('names each copy of a line written 5 times, and counts its call once', () => {
    const lines = run(3);
    const result = verify([
      ...lines,
      ...Array.from({ length: 5 }, () => lines[1] as Record<string, unknown>),
    ]);
    expect(result.ok).toBe(false);
    expect(result).toMatchObject({ lines: 8, verified: 3 });
    expect(result.sequence).toMatchObject({ duplicates: 5, missing: 0, outOfOrder: 0 });
    expect(result.sequence.findings.map((finding) => [finding.kind, finding.line, finding.why])).toEqual(
      [4, 5, 6, 7, 8].map((at) => [
        'duplicate',
        at,
        `the same call as line 2 (callId "${lines[1]?.callId}")`,
      ]),
    );
    // Without call ids (older adapters' records), by the writer's number.
    const bare = run(2, { callId: undefined });
    const repeated = verify([...bare, bare[0] as Record<string, unknown>]);
    expect(repeated.sequence.findings[0]?.why).toBe(
      'seq 1 of host "worker-1" pid 4242 again, after seq 2 (line 2)',
    );
  });

  it('names lines reversed as out of order, not missing', () => {
    const result = verify(run(4).reverse());
    expect(result.ok).toBe(false);
    expect(result.sequence).toMatchObject({ missing: 0, duplicates: 0, outOfOrder: 3 });
    expect(result.sequence.findings[0]).toMatchObject({
      kind: 'out-of-order',
      line: 2,
      seq: 3,
      why: 'seq 3 of host "worker-1" pid 4242 comes after seq 4 (line 1)',
    });
  });

  it('counts a number an unreadable line holds as that line, which cannot be verified', () => {
    const lines: (Record<string, unknown> | null)[] = run(3);
    lines[1] = null;
    const result = verify(lines);
    expect(result).toMatchObject({ ok: false, skipped: 1 });
    expect(result.sequence).toMatchObject({ missing: 0, explained: 1, findingCount: 0 });
    expect(verify(lines, undefined, { allowUnverifiable: true }).ok).toBe(true);
    // One unreadable line explains one number, not two.
    const two = run(4);
    const result2 = verify([two[0], null, two[3]] as (Record<string, unknown> | null)[], undefined, {
      allowUnverifiable: true,
    });
    expect(result2).toMatchObject({ ok: false, sequence: { missing: 2, explained: 0 } });
  });

  it('cannot follow lines without a number (journal format 1): they are not verified', () => {
    const old = [line({ v: 1, seq: undefined, callId: undefined, host: undefined, pid: undefined })];
    const result = verify(old);
    expect(result).toMatchObject({
      ok: false,
      verified: 1,
      sequence: { unnumbered: { count: 1, lines: [1] } },
    });
    expect(verify(old, undefined, { allowUnverifiable: true }).ok).toBe(true);
  });
});

describe('verifying a journal: lines that contradict themselves (issue 40.8)', () => {
  const zeroUsage = { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 };

  it('names a reply whose usage and cost were zeroed together', () => {
    const result = verify([line({ usage: zeroUsage, costUsd: 0, costNanoUsd: 0 })]);
    expect(result).toMatchObject({ ok: false, verified: 0, inconsistentCount: 1 });
    expect(result.inconsistent[0]?.why).toBe(
      'a reply settled exact with 0 prompt tokens: every request sends a prompt, so its usage was changed (and its cost with it)',
    );
  });

  it('names settlements a numbered line cannot have', () => {
    const reasons = verify([
      line({ settlement: 'none', costUsd: null, costNanoUsd: null, usage: null }),
      line({ usage: null, costUsd: null, costNanoUsd: null }),
      line({
        settlement: 'none',
        costUsd: null,
        costNanoUsd: null,
        usage: null,
        responseId: 'chatcmpl-1',
        error: { kind: 'server', status: 500, degradation: false },
      }),
    ]).inconsistent.map((entry) => entry.why);
    expect(reasons).toEqual([
      'settled none though no error ended it: a call that was answered settles exact or as an estimate',
      'settled exact without a usage: only a reply’s usage settles a call exactly',
      'settled none (it never reached the provider) though it names the reply "chatcmpl-1"',
    ]);
  });
});

describe('verifying a journal: budget entries one process contradicts (issue 40.8)', () => {
  const triage = (limitUsd: unknown) => ({ budgets: [{ scope: 'run', limitUsd }] });

  it('names a scope whose limit one line changed, and passes the same limit on every line', () => {
    expect(verify(run(3, triage(0.01))).ok).toBe(true);
    const lines = run(3, triage(0.01));
    (lines[2] as Record<string, unknown>).budgets = [{ scope: 'run', limitUsd: 9e6 }];
    const result = verify(lines);
    expect(result.ok).toBe(false);
    expect(result.budgets.changed).toEqual([
      {
        line: 3,
        scope: 'run',
        why: 'budget scope "run": limitUsd 9000000 here, 0.01 on line 1 of the same process: a scope\'s limit does not change while its budget runs, so one of them was changed',
      },
    ]);
  });

  it('cannot verify a sent call charged to no scope among a process’s charged calls', () => {
    const lines = run(3, triage(0.01));
    delete (lines[1] as Record<string, unknown>).budgets;
    // A call refused before it was sent has no scope: nothing to say.
    lines.push(
      line({
        seq: 4,
        attempts: 0,
        settlement: 'none',
        costUsd: null,
        costNanoUsd: null,
        usage: null,
        error: { kind: 'budget', status: null, degradation: false },
      }),
    );
    const result = verify(lines);
    expect(result).toMatchObject({ ok: false, budgets: { unchargedCount: 1 } });
    expect(result.budgets.uncharged[0]).toEqual({
      line: 2,
      scope: 'run',
      why: 'a sent call charged to no budget scope, where the same process\'s calls were charged to "run" (line 1): its cost is checked against no limit',
    });
    expect(verify(lines, undefined, { allowUnverifiable: true }).ok).toBe(true);
  });
});
