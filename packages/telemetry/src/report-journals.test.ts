import { copyFileSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PRIMARY_JUDGE_CALL } from './__fixtures__/call-records.js';
import { journalLineOf } from './journal-line.js';
import type { JournalIssue } from './read-journal.js';
import { reportJournal } from './report-journal.js';
import { reportJournals } from './report-journals.js';

const START = Date.parse('2026-11-23T08:00:00.000Z');

/** A worker's journal: `calls` lines of host `host`, process `pid`, one a second, each its own call. */
function journal(
  folder: string,
  name: string,
  host: string,
  pid: number,
  calls: number,
  offsetMs = 0,
): string {
  const lines: string[] = [];
  for (let index = 0; index < calls; index++) {
    const record = {
      ...PRIMARY_JUDGE_CALL,
      at: new Date(START + offsetMs + index * 1000).toISOString(),
      costNanoUsd: 1000 + pid + index,
      costUsd: (1000 + pid + index) / 1e9,
      callId: `${host}-${pid}-${index}`,
      host,
      pid,
    };
    lines.push(JSON.stringify(journalLineOf(record, null, undefined, index + 1)));
  }
  const path = join(folder, name);
  writeFileSync(path, `${lines.join('\n')}\n`);
  return path;
}

describe('reportJournals', () => {
  it('merges journals into one report with totals by host and process, each call once', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'fleet-'));
    const a = journal(folder, 'a.jsonl', 'alpha', 11, 50);
    const b = journal(folder, 'b.jsonl', 'alpha', 12, 30, 400);
    const c = journal(folder, 'c.jsonl', 'beta', 11, 20, 700);
    const copy = join(folder, 'a-copy.jsonl');
    copyFileSync(a, copy);
    const alone = await Promise.all([a, b, c].map((path) => reportJournal(path, { onIssue: () => {} })));
    const figures = await reportJournals([a, b, c, copy]);
    expect(figures.totals.calls).toBe(100);
    expect(figures.totals.costNanoUsd).toBe(alone.reduce((sum, one) => sum + one.totals.costNanoUsd, 0));
    expect(figures.repeats.count).toBe(50);
    expect(figures.repeats.lines[0]).toEqual({ file: copy, line: 1, of: { file: a, line: 1 } });
    expect(figures.conflicts.count).toBe(0);
    expect(Object.keys(figures.hosts)).toEqual(['alpha', 'beta']);
    expect(figures.hosts.alpha?.calls).toBe(80);
    expect(Object.keys(figures.hosts.alpha?.processes ?? {}).sort()).toEqual(['11', '12']);
    expect(figures.hosts.beta?.processes['11']?.costNanoUsd).toBe(alone[2]?.totals.costNanoUsd);
    expect(figures.journals).toEqual({ read: 4, unreadable: [] });
  });

  it('counts two calls with the same text but other ids twice, and names a call told two ways', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'fleet-'));
    const a = journal(folder, 'a.jsonl', 'alpha', 11, 3);
    const line = JSON.parse(
      JSON.stringify(
        journalLineOf(
          { ...PRIMARY_JUDGE_CALL, callId: 'alpha-11-1', host: 'alpha', pid: 11 },
          null,
          undefined,
          2,
        ),
      ),
    );
    const forged = join(folder, 'b.jsonl');
    writeFileSync(
      forged,
      `${JSON.stringify({ ...line, at: new Date(START + 1000).toISOString(), costNanoUsd: 5, costUsd: 5e-9 })}\n`,
    );
    const figures = await reportJournals([a, forged]);
    expect(figures.totals.calls).toBe(3);
    expect(figures.conflicts.count).toBe(1);
    expect(figures.conflicts.lines[0]).toMatchObject({ file: forged, line: 1, of: { file: a, line: 2 } });
  });

  it('names a journal it cannot read and reports the others; filters by time, by host too', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'fleet-'));
    const a = journal(folder, 'a.jsonl', 'alpha', 11, 10);
    const issues: JournalIssue[] = [];
    writeFileSync(join(folder, 'bad.jsonl'), '{oops\n');
    const figures = await reportJournals(
      [join(folder, 'missing.jsonl'), a, join(folder, 'bad.jsonl'), folder],
      {
        since: START + 5000,
        onIssue: (issue) => issues.push(issue),
      },
    );
    expect(figures.totals.calls).toBe(5);
    expect(figures.hosts.alpha?.calls).toBe(5);
    expect(figures.journals.read).toBe(2);
    expect(figures.journals.unreadable.map((one) => one.file)).toEqual([
      join(folder, 'missing.jsonl'),
      folder,
    ]);
    expect(figures.journals.unreadable[0]?.why).toMatch(/ENOENT/);
    expect(issues.map((issue) => issue.message)).toEqual([
      `${join(folder, 'bad.jsonl')}:1: not JSON, skipped`,
    ]);
  });

  it('finds a copy however the lines of the journals interleave in time', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'fleet-'));
    const paths = [0, 1, 2].map((index) =>
      journal(folder, `w${index}.jsonl`, `h${index}`, 7, 200, index * 333),
    );
    copyFileSync(paths[1] as string, join(folder, 'w1-again.jsonl'));
    const figures = await reportJournals([...paths, join(folder, 'w1-again.jsonl')]);
    expect(figures.totals.calls).toBe(600);
    expect(figures.repeats.count).toBe(200);
    expect(figures.late).toBe(0);
  });
});
