import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { GATEWAY_DETECTOR_CALL, PRIMARY_JUDGE_CALL } from './__fixtures__/call-records.js';
import { journalLineOf } from './journal-line.js';
import type { JournalIssue } from './read-journal.js';
import { reportJournal } from './report-journal.js';

describe('reportJournal', () => {
  it('reads a journal file into report figures, filtered, naming the lines it skipped', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'report-')), 'run.jsonl');
    const lines = [PRIMARY_JUDGE_CALL, GATEWAY_DETECTOR_CALL].map((record) =>
      JSON.stringify(journalLineOf(record, null, undefined)),
    );
    writeFileSync(path, `${lines[0]}\n{oops\n${lines[1]}\n{"model":`);
    const issues: JournalIssue[] = [];
    const figures = await reportJournal(path, {
      since: '2026-11-23T08:01:00Z',
      onIssue: (issue) => issues.push(issue),
    });
    expect(figures.totals.calls).toBe(1);
    expect(figures.filteredOut).toBe(1);
    expect(figures.byEndpoint).toHaveProperty('unknown');
    expect(figures.skipped).toEqual({ count: 2, lines: [2, 4] });
    expect(issues.map((issue) => issue.kind)).toEqual(['malformed', 'torn']);
  });
});
