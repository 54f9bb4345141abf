import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PRIMARY_JUDGE_CALL } from './__fixtures__/call-records.js';
import { journalLineOf } from './journal-line.js';
import { verifyJournals } from './verify-journals.js';

/** A journal of `calls` judge calls of `host`, each charged to scope `fleet` (limit $0.001). */
function journal(folder: string, host: string, calls: number): { name: string; source: string } {
  const lines = Array.from({ length: calls }, (_, index) =>
    JSON.stringify(
      journalLineOf(
        {
          ...PRIMARY_JUDGE_CALL,
          at: new Date(Date.parse('2026-11-23T08:00:00Z') + index * 1000).toISOString(),
          callId: `${host}-${index}`,
          host,
          pid: 7,
          budgets: [{ scope: 'fleet', limitUsd: 0.001 }],
        },
        null,
        undefined,
        index + 1,
      ),
    ),
  );
  const path = join(folder, `${host}.jsonl`);
  writeFileSync(path, `${lines.join('\n')}\n`);
  return { name: path, source: path };
}

describe('verifyJournals', () => {
  it('sums a budget scope over every host: each journal within the limit, the fleet past it, named by file and line', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'verify-fleet-'));
    // 210,000 nano-dollars a call: 4 calls each ($0.00084), 8 together ($0.00168) past $0.001.
    const a = journal(folder, 'alpha', 4);
    const b = journal(folder, 'beta', 4);
    const result = await verifyJournals([a, b]);
    expect(result.journals.map((one) => one.verification?.budgets.overspent)).toEqual([[], []]);
    expect(result.budgets.overspent).toEqual([
      // Merged by time (the two hosts' calls end together): the fifth call, alpha's third, passes the limit.
      { scope: 'fleet', limitNanoUsd: 1_000_000, spentNanoUsd: 1_680_000, file: a.name, line: 3 },
    ]);
    expect(result.ok).toBe(false);
    const alone = await verifyJournals([a]);
    expect(alone.budgets.overspent).toEqual([]);
  });

  it('fails on a call told two ways in two journals, names a copy without failing, and a journal it cannot read', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'verify-fleet-'));
    const a = journal(folder, 'alpha', 2);
    const copy = join(folder, 'alpha-copy.jsonl');
    const text = (await import('node:fs')).readFileSync(a.source, 'utf8');
    writeFileSync(copy, text);
    const copied = await verifyJournals([a, { name: copy, source: copy }]);
    expect(copied.repeats.count).toBe(2);
    expect(copied.conflicts.count).toBe(0);
    expect(copied.budgets.overspent).toEqual([]);
    const told = join(folder, 'told.jsonl');
    writeFileSync(told, text.replace('"durationMs":1500', '"durationMs":1499'));
    const conflicting = await verifyJournals([a, { name: told, source: told }]);
    // The other account ends a millisecond earlier: read first, the original is the one named.
    expect(conflicting.conflicts.lines[0]).toEqual({ file: a.name, line: 1, of: { file: told, line: 1 } });
    expect(conflicting.ok).toBe(false);
    const missing = await verifyJournals([a, { name: 'gone.jsonl', source: join(folder, 'gone.jsonl') }]);
    expect(missing.journals[1]).toEqual({
      file: 'gone.jsonl',
      verification: null,
      why: 'ENOENT: no such file or directory',
    });
    expect(missing.ok).toBe(false);
  });
});
