import { describe, expect, it } from 'vitest';
import { checkJournalLine } from './check-journal-line.js';

const LINE = { model: 'primary-flash', at: '2026-11-23T08:00:00.000Z' };

describe('checkJournalLine', () => {
  it('reads lines of format 2 with their number, call id and process, and lines of format 1 without them', () => {
    const numbered = { v: 2, seq: 3, callId: 'call-1', host: 'build-3', pid: 4242, ...LINE };
    expect(checkJournalLine(numbered)).toMatchObject({ line: numbered });
    expect(checkJournalLine({ v: 1, ...LINE })).toMatchObject({ line: { v: 1 } });
    expect(checkJournalLine(LINE)).toMatchObject({ line: LINE });
  });

  it.each([
    [{ v: 3 }, 'v: expected 1 or 2 (the journal formats this reader knows), got 3'],
    [{ seq: 0 }, 'seq: expected a whole number from 1 to 9007199254740991, got 0'],
    [{ seq: 1.5 }, 'seq: expected a whole number from 1 to 9007199254740991, got 1.5'],
    [{ pid: -1 }, 'pid: expected a whole number from 0 to 4294967295, got -1'],
    [{ callId: 7 }, 'callId: expected a string or null, got the number 7'],
    [{ host: 'h'.repeat(257) }, 'host: longer than 256 characters (257)'],
  ])('refuses %j', (fields, why) => {
    expect(checkJournalLine({ v: 2, ...LINE, ...fields })).toBe(why);
  });
});
