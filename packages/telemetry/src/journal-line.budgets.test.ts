import { describe, expect, it } from 'vitest';
import { PRIMARY_JUDGE_CALL } from './__fixtures__/call-records.js';
import { JOURNAL_LIMITS } from './journal-limits.js';
import { journalEndpoint, journalLineText } from './journal-line.js';
import { parseJournalLine } from './read-journal.js';
import type { TelemetryRecord } from './telemetry-record.js';
import { JournalVerifier } from './verify-journal.js';

const ENDPOINT = JSON.stringify(
  journalEndpoint({ provider: 'primary', baseUrl: 'https://api.primary.example' }),
);
const budgets = [
  { scope: 'run', limitUsd: 1 },
  { scope: 'run/judge', limitUsd: 0.0004 },
];

/** Writes each record as a journal line, reads it back and verifies the lines together. */
function verify(records: readonly object[]) {
  const verifier = new JournalVerifier();
  records.forEach((record, index) => {
    const checked = parseJournalLine(
      journalLineText(record as TelemetryRecord, ENDPOINT, undefined),
      index + 1,
    );
    if ('message' in checked) throw new Error(checked.message);
    verifier.add(checked, index + 1);
  });
  return verifier.result();
}

describe('a record’s budget scopes on its journal line', () => {
  it('are written from the record, also by the last resort, and checked against their limits', () => {
    const call = { ...PRIMARY_JUDGE_CALL, budgets };
    expect(verify([call]).budgets).toMatchObject({ scopes: 2, overspent: [], invalidCount: 0, invalid: [] });
    // Two calls of 210,000 nano-dollars pass the judge scope's 400,000.
    expect(verify([call, call]).budgets.overspent).toEqual([
      { scope: 'run/judge', limitNanoUsd: 400_000, spentNanoUsd: 420_000, line: 2 },
    ]);
    const huge = { ...call, responseId: 'r'.repeat(2 * JOURNAL_LIMITS.maxLineBytes) };
    const line = JSON.parse(journalLineText(huge as TelemetryRecord, ENDPOINT, undefined));
    expect(line.recordError).toMatch(/over the reader’s line cap/);
    expect(line.budgets).toEqual(budgets);
  });
});
