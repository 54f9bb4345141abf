// Issue 33: every call that went through a budget carries its scopes and limits on its record
// (CallRecord.budgets, set by the budget per attempt), the journal writes them on the line, and
// `switchboard report --verify` checks that no scope's settled spend in the journal passes its
// limit, with no annotation by hand.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from './run-cli.js';
import { tempDirectory } from './temp-directory.js';

const directory = tempDirectory('switchboard-budget-journal-');

interface Line {
  role: string | null;
  attempts: number;
  costNanoUsd: number | null;
  budgets?: { scope: string; limitUsd: number | null }[];
  extra?: unknown;
}

describe('a budgeted run’s journal', () => {
  it('names each call’s budget scopes, verifies, and fails naming the scope once its spend passes the limit', async () => {
    const journal = join(directory.path, 'run.jsonl');
    const demo = await runCli(['demo', '--journal', journal]);
    expect(demo.code).toBe(0);
    const texts = (await readFile(journal, 'utf8')).trim().split('\n');
    const lines = texts.map((text) => JSON.parse(text) as Line);
    // Every call sent went through the run's budget; the triage role's also through its own scope.
    const sent = lines.filter((line) => line.attempts > 0);
    expect(sent.length).toBeGreaterThan(3);
    for (const line of sent) {
      expect(line.extra).toBeUndefined();
      expect(line.budgets?.[0]).toEqual({ scope: 'demo', limitUsd: expect.any(Number) });
    }
    const triage = sent.filter((line) => line.role === 'triage');
    expect(triage.length).toBeGreaterThan(0);
    for (const line of triage)
      expect(line.budgets?.map((budget) => budget.scope)).toEqual(['demo', 'demo/triage']);

    const clean = await runCli(['report', '--verify', journal]);
    expect(clean.code).toBe(0);
    expect(clean.stdout).toMatch(/; 2 budget scopes checked; numbered lines of 1 process followed, /);

    // The triage calls journaled twice: each copy is the same call again (its callId), counted once.
    const triageTexts = texts.filter((_, index) => lines[index]?.role === 'triage' && lines[index]?.attempts);
    const doubled = await directory.file('doubled.jsonl', `${texts.concat(triageTexts).join('\n')}\n`);
    const copied = await runCli(['report', '--verify', doubled]);
    expect(copied.code).toBe(1);
    expect(copied.stdout).toMatch(/doubled\.jsonl:\d+: written twice: the same call as line \d+ /);
    expect(copied.stdout).not.toContain('spent $');

    // The same calls as if made again (ids of their own, numbered on): each line still re-derives,
    // but the scope's settled spend passes its limit.
    const again = triageTexts.map((text, index) => {
      const line = JSON.parse(text);
      return JSON.stringify({ ...line, callId: `again-${index}`, seq: texts.length + index + 1 });
    });
    const tampered = await directory.file('again.jsonl', `${texts.concat(again).join('\n')}\n`);
    const run = await runCli(['report', '--verify', tampered]);
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(
      /again\.jsonl:\d+: budget scope "demo\/triage" spent \$[\d.]+ in this journal, past its limit of \$0\.0005/,
    );
    expect(run.stdout).not.toContain('budget scope "demo" spent');
    expect(run.stdout).not.toContain(': differs: ');
    expect(run.stdout).not.toContain('written twice');
  });
});
