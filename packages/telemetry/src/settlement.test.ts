import { describe, expect, it } from 'vitest';
import { checkJournalLine } from './check-journal-line.js';
import { derivedSettlement, settlementOf } from './settlement.js';

const LINE = { v: 1, model: 'primary-flash', at: '2026-11-23T08:00:00.000Z' };

describe('derivedSettlement: the settlement of a line written before the field existed', () => {
  it.each([
    ['an estimate', { priceSource: 'estimate', costUsd: 0.0001 }, 'estimate'],
    [
      'an estimate, even failed',
      { priceSource: 'estimate', costNanoUsd: 5, error: { kind: 'server', status: 500 } },
      'estimate',
    ],
    ['a priced reply', { priceSource: 'table', costNanoUsd: 210_000, usage: { prompt_tokens: 1 } }, 'exact'],
    ['a priced failure', { costUsd: 0.001, error: { kind: 'timeout', status: null } }, 'exact'],
    ['an HTTP error status', { error: { kind: 'rate_limited', status: 429 } }, 'none'],
    ['a budget refusal', { error: { kind: 'budget', status: null } }, 'none'],
    ['a timeout', { error: { kind: 'timeout', status: null } }, 'unsettled'],
    ['a connection failure', { error: { kind: 'connection' } }, 'unsettled'],
    ['an unpriced reply with usage', { usage: { prompt_tokens: 3 }, costUsd: null }, 'exact'],
    ['a reply with neither usage nor cost', { usage: null, costUsd: null }, 'unsettled'],
  ])('%s', (_, facts, settlement) => {
    expect(derivedSettlement(facts)).toBe(settlement);
  });

  it('is not used when the record says its settlement', () => {
    expect(settlementOf({ settlement: 'unsettled', costNanoUsd: 5 })).toBe('unsettled');
    expect(settlementOf({ settlement: 'other', costNanoUsd: 5 })).toBe('exact');
  });
});

describe('checkJournalLine and settlement', () => {
  it('takes lines with a settlement, and derives it (on the line too) for lines without', () => {
    const withField = checkJournalLine({ ...LINE, settlement: 'unsettled', costUsd: null });
    expect(withField).toMatchObject({ settlement: 'unsettled', line: { settlement: 'unsettled' } });
    const old = checkJournalLine({ ...LINE, priceSource: 'estimate', costUsd: 0.00009 });
    expect(old).toMatchObject({ settlement: 'estimate', line: { settlement: 'estimate' } });
    expect(
      checkJournalLine({ ...LINE, settlement: null, error: { kind: 'server', status: 503 } }),
    ).toMatchObject({
      settlement: 'none',
    });
  });

  it('skips a line whose settlement is none of the four', () => {
    expect(checkJournalLine({ ...LINE, settlement: 'maybe' })).toBe(
      'settlement: expected exact, estimate, unsettled, none or null, got a string ("maybe")',
    );
    expect(checkJournalLine({ ...LINE, settlement: 1 })).toMatch(/^settlement: expected/);
  });
});
