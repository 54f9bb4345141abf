import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, runCliInTerminal } from './run-cli.js';
import { tempDirectory } from './temp-directory.js';

const directory = tempDirectory('switchboard-report-');

interface Totals {
  calls: number;
  attempts: number;
  failures: number;
  degradations: number;
  costUsd: number;
  unpricedCalls: number;
  refusedCalls: number;
}

interface Figures {
  totals: Totals;
  byRole: Record<string, Totals>;
  byModel: Record<string, Totals>;
  byEndpoint: Record<string, Totals>;
  cache: { hitTokens: number; ratio: number | null; savedUsd: number };
  errors: Record<string, { calls: number; degradations: number }>;
  degradations: number;
  spend: { bucket: string; buckets: { start: string; costUsd: number; calls: number }[] };
  skipped: { count: number; lines: number[] };
  filteredOut: number;
}

const endpoint = { provider: 'primary', baseUrl: 'https://api.primary.example', thinking: false };

/** A journal line as a CallJournal writes it. */
function line(at: string, role: string, costUsd: number | null, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({
    v: 1,
    model: 'primary-flash',
    usage: { prompt_tokens: 100, prompt_cache_hit_tokens: 60, completion_tokens: 10 },
    costUsd,
    pricedAs: 'primary-flash',
    priceSource: 'table',
    tariff: null,
    at,
    durationMs: 120,
    attempts: 1,
    role,
    error: null,
    endpoint,
    outcome: 'ok',
    degradation: false,
    ...extra,
  });
}

const rejected = {
  model: 'primary-retired',
  usage: null,
  costUsd: null,
  error: { kind: 'model_rejected', status: 400, degradation: true },
  outcome: 'model_rejected',
  degradation: true,
};

// Three minutes of a run: two calls, a quiet minute, then a call and a rejected model.
const RUN = [
  line('2026-11-23T09:00:10.000Z', 'detector', 0.25),
  line('2026-11-23T09:00:40.000Z', 'judge', 0.5),
  line('2026-11-23T09:02:05.000Z', 'detector', 1),
  line('2026-11-23T09:02:30.000Z', 'judge', null, rejected),
].join('\n');

async function reportJson(args: string[]): Promise<Figures> {
  const run = await runCli(['report', ...args, '--json']);
  expect(run.stderr).toBe('');
  expect(run.code).toBe(0);
  return JSON.parse(run.stdout) as Figures;
}

describe('switchboard report', () => {
  it('--json gives the totals, breakdowns, cache, errors and spend per minute of the journal', async () => {
    const figures = await reportJson([await directory.file('run.jsonl', `${RUN}\n`)]);
    expect(figures.totals).toMatchObject({ calls: 4, failures: 1, degradations: 1, costUsd: 1.75 });
    // The rejected call cost nothing: refused, not unpriced (nothing lacks a price).
    expect(figures.totals).toMatchObject({ unpricedCalls: 0, refusedCalls: 1 });
    expect(figures.byRole.detector).toMatchObject({ calls: 2, costUsd: 1.25 });
    expect(figures.byRole.judge).toMatchObject({ calls: 2, failures: 1, costUsd: 0.5 });
    expect(Object.keys(figures.byModel)).toEqual(['primary-flash', 'primary-retired']);
    expect(Object.keys(figures.byEndpoint)).toEqual(['primary https://api.primary.example']);
    expect(figures.cache).toMatchObject({ hitTokens: 180, ratio: 0.6 });
    expect(figures.cache.savedUsd).toBeGreaterThan(0);
    expect(figures.errors).toEqual({ model_rejected: { calls: 1, degradations: 1 } });
    expect(figures.spend.bucket).toBe('minute');
    expect(figures.spend.buckets.map((bucket) => [bucket.start.slice(11, 16), bucket.costUsd])).toEqual([
      ['09:00', 0.75],
      ['09:01', 0],
      ['09:02', 1],
    ]);
  });

  it('--since (inclusive) and --until (exclusive) keep only the calls in that window', async () => {
    const file = await directory.file('window.jsonl', `${RUN}\n`);
    const figures = await reportJson([
      file,
      '--since',
      '2026-11-23T09:00:40Z',
      '--until',
      '2026-11-23T09:02:30.000Z',
    ]);
    expect(figures.totals).toMatchObject({ calls: 2, costUsd: 1.5, failures: 0 });
    expect(figures.filteredOut).toBe(2);
    const text = await runCli(['report', file, '--since', '2026-11-23T09:02:00Z']);
    expect(text.stdout).toMatch(/^ {2}2 calls, 1 failed \(1 degradation\), 2 attempts$/m);
    expect(text.stdout).toContain('2 calls outside the time window (--since, --until) left out');
  });

  it('prints the report as text: totals, tables by role, model and endpoint, errors and a plain spend chart', async () => {
    const run = await runCli(['report', await directory.file('text.jsonl', `${RUN}\n`)], { COLUMNS: '70' });
    expect(run.code).toBe(0);
    const { stdout } = run;
    expect(stdout).toMatch(/^Journal report: 2026-11-23T09:00:10\.000Z \.\. 2026-11-23T09:02:30\.000Z$/m);
    expect(stdout).toContain('  cost $1.750000000 (1 call refused before any cost)');
    expect(stdout).toMatch(/│ detector +│ +2 │ +0 │ +\$1\.250000000 │ +71\.4% │/);
    expect(stdout).toMatch(/│ primary-retired +│ +1 │ +1 │ +\$0\.000000000 │ +0\.0% │/);
    expect(stdout).toMatch(/│ model_rejected +│ +1 │ +1 │/);
    const bars = stdout
      .split('\n')
      .filter((text) => /^ {2}09:0\d \|/.test(text))
      .map((text) => text.slice(text.indexOf('|') + 1, text.lastIndexOf('|')));
    expect(bars).toHaveLength(3);
    // Scaled to the width: the dearest minute fills the bar, the others in proportion, the quiet one empty.
    expect(bars.map((bar) => bar.length)).toEqual([bars[0]?.length, bars[0]?.length, bars[0]?.length]);
    expect(bars[2]).toMatch(/^#+$/);
    expect(bars[0]?.trimEnd()).toBe('#'.repeat(Math.round((bars[2]?.length ?? 0) * 0.75)));
    expect(bars[1]?.trim()).toBe('');
    // biome-ignore lint/suspicious/noControlCharactersInRegex: no colour codes in a pipe.
    expect(stdout).not.toMatch(/\u001b/);
    for (const text of stdout.split('\n').filter((row) => row.startsWith('  09:0'))) {
      expect(text.length).toBeLessThanOrEqual(70);
    }
    const wide = await runCli(['report', join(directory.path, 'text.jsonl')], { COLUMNS: '120' });
    const wideBar = wide.stdout.split('\n').find((text) => text.startsWith('  09:02 |')) ?? '';
    expect(wideBar.split('#').length - 1).toBe((bars[2]?.length ?? 0) + 50);
  });

  it("sizes the bars from the run's range: a bar per hour over a day, at most 60 bars", async () => {
    const long = [
      line('2026-11-23T07:10:00Z', 'detector', 2),
      line('2026-11-23T08:30:00Z', 'detector', 1),
      line('2026-11-24T10:05:00Z', 'judge', 4),
    ].join('\n');
    const run = await runCli(['report', await directory.file('hours.jsonl', `${long}\n`)]);
    expect(run.stdout).toMatch(/^Spend per hour$/m);
    const bars = run.stdout.split('\n').filter((text) => /^ {2}11-2\d \d\d \|/.test(text));
    expect(bars).toHaveLength(28);
    expect(bars.map((text) => text.slice(2, 10)).slice(0, 2)).toEqual(['11-23 07', '11-23 08']);
    expect(bars[2]).toMatch(/\| \$0\.000000000 {2}0 calls$/);
    expect(bars[27]).toMatch(/^ {2}11-24 10 \|#+\| \$4\.000000000 {2}1 call$/);
    const wide = [line('2000-01-01T00:00:00Z', 'old', 1), line('2099-12-31T00:00:00Z', 'new', 1)].join('\n');
    const century = await runCli(['report', await directory.file('century.jsonl', `${wide}\n`), '--json']);
    expect(century.code).toBe(0);
    expect(JSON.parse(century.stdout).spend.buckets.length).toBeLessThanOrEqual(60);
  });

  it('draws the chart in colour with block characters on a terminal, plain under NO_COLOR', async () => {
    const file = await directory.file('tty.jsonl', `${RUN}\n`);
    const colour = await runCliInTerminal(['report', file]);
    expect(colour.code).toBe(0);
    expect(colour.stdout).toContain('█');
    expect(colour.stdout).toContain('\u001b[36m');
    const plain = await runCliInTerminal(['report', file], { NO_COLOR: '1' });
    expect(plain.stdout).not.toContain('█');
    expect(plain.stdout).not.toContain('\u001b[');
    expect(plain.stdout).toMatch(/09:02 \|#+\|/);
  });

  it('names malformed lines by number on stderr, leaves them out and still reports (exit 0)', async () => {
    const torn = '{"v":1,"model":"primary-flash","at":"2026-11-23T09:0';
    const file = await directory.file('torn.jsonl', `${RUN}\nnot json\n[1]\n${torn}`);
    const run = await runCli(['report', file, '--json']);
    expect(run.code).toBe(0);
    expect(run.stderr).toContain(`switchboard: warning: ${file}:5: not JSON, skipped`);
    expect(run.stderr).toContain(`${file}:6: expected a JSON object (a call record), got an array, skipped`);
    expect(run.stderr).toContain(`${file}:7: the last line is incomplete (cut off mid-write), skipped`);
    const figures = JSON.parse(run.stdout) as Figures;
    expect(figures.totals.calls).toBe(4);
    expect(figures.skipped).toEqual({ count: 3, lines: [5, 6, 7] });
  });

  it('prints names from the file with control characters escaped, in text and in JSON', async () => {
    const file = await directory.file(
      'hostile.jsonl',
      `${line('2026-11-23T09:00:00Z', 'judge\u001b[2J\u009b', 1)}\n`,
    );
    const text = await runCli(['report', file]);
    expect(text.stdout).toContain('judge\\u001b[2J\\u009b');
    // biome-ignore lint/suspicious/noControlCharactersInRegex: the characters that must not get through.
    expect(text.stdout).not.toMatch(/[\u001b\u009b]/);
    const json = await runCli(['report', file, '--json']);
    expect(Object.keys((JSON.parse(json.stdout) as Figures).byRole)).toEqual(['judge\u001b[2J\u009b']);
  });

  it('exits 2 naming the option for a bad --since or --until, and in words for a missing file', async () => {
    const file = await directory.file('options.jsonl', `${RUN}\n`);
    const since = await runCli(['report', file, '--since', 'yesterday']);
    expect(since.code).toBe(2);
    expect(since.stderr).toBe(
      'switchboard: --since: expected an ISO time such as 2026-11-23T09:00:00Z (or a date, 2026-11-23; UTC unless a zone is given), got "yesterday"\n',
    );
    const until = await runCli(['report', file, '--until', '2026-13-45']);
    expect(until.code).toBe(2);
    expect(until.stderr).toMatch(/^switchboard: --until: expected an ISO time/);
    const reversed = await runCli(['report', file, '--since', '2026-11-23', '--until', '2026-11-22']);
    expect(reversed.code).toBe(2);
    expect(reversed.stderr).toBe('switchboard: --until: must be later than --since\n');
    const missing = join(directory.path, 'missing.jsonl');
    const gone = await runCli(['report', missing]);
    expect(gone.code).toBe(2);
    expect(gone.stderr).toBe(`switchboard: cannot read the journal: no such file: ${missing}\n`);
    expect(gone.stdout).toBe('');
    // A folder is read as many journals (every *.jsonl in it): one without any is named, exit 2.
    const empty = join(directory.path, 'empty');
    await mkdir(empty);
    const folder = await runCli(['report', empty, '--json']);
    expect(folder.code).toBe(2);
    expect(folder.stderr).toContain(`cannot read ${empty} (the folder holds no *.jsonl file)`);
  });
});

describe('switchboard demo journal', () => {
  it("journals the session; the report's totals equal the adapter's costUsd() sums exactly", async () => {
    const journal = join(directory.path, 'demo.jsonl');
    const run = await runCli(['demo', '--json', '--journal', journal]);
    expect(run.code).toBe(0);
    const demo = JSON.parse(run.stdout) as {
      totalCostUsd: number;
      journal: string;
      report: Figures;
      roles: { role: string; calls: number; attempts: number; usd: number }[];
      total: { calls: number; attempts: number };
    };
    expect(demo.journal).toBe(journal);
    expect(demo.totalCostUsd).toBeGreaterThan(0);
    expect(demo.report.totals.costUsd).toBe(demo.totalCostUsd);
    // The report of the file, read again by the report command, says the same.
    const figures = await reportJson([journal]);
    expect(figures.totals.costUsd).toBe(demo.totalCostUsd);
    expect(figures.totals).toEqual(demo.report.totals);
    // One line per raw call: the judge's empty-JSON retry counts twice, the rejected model once, as a
    // degradation, and the triage call its budget refused before it was sent once, as a budget error.
    const lines = (await readFile(journal, 'utf8')).trim().split('\n');
    expect(figures.totals.calls).toBe(lines.length);
    expect(figures.errors).toEqual({
      model_rejected: { calls: 1, degradations: 1 },
      budget: { calls: 1, degradations: 0 },
    });
    // Both cost nothing because they were refused; every model of the demo has a price.
    expect(figures.totals).toMatchObject({ refusedCalls: 2, unpricedCalls: 0 });
    const triage = demo.roles.find((row) => row.role === 'triage');
    // The demo's table counts calls and attempts as the journal does: the refused call is a call of 0 attempts.
    expect(figures.byRole.triage).toMatchObject({
      calls: triage?.calls,
      attempts: triage?.attempts,
      failures: 1,
      degradations: 0,
    });
    expect(figures.totals.calls).toBe(demo.total.calls);
    expect(figures.totals.attempts).toBe(demo.total.attempts);
    expect(figures.totals.attempts).toBe(figures.totals.calls - 1);
    expect(figures.byRole.triage?.costUsd).toBeCloseTo(triage?.usd ?? -1, 15);
    for (const role of demo.roles.filter((row) => row.role !== 'rejected-model' && row.role !== 'triage')) {
      expect(figures.byRole[role.role]?.calls).toBe(role.calls);
      expect(figures.byRole[role.role]?.costUsd).toBeCloseTo(role.usd, 15);
    }
    expect(figures.byRole['rejected-model']).toMatchObject({ calls: 1, failures: 1, degradations: 1 });
    // A second session appended to the same journal: the demo reports its own calls only.
    const again = JSON.parse((await runCli(['demo', '--json', '--journal', journal])).stdout) as typeof demo;
    expect(again.report.totals.costUsd).toBe(again.totalCostUsd);
    expect(again.report.filteredOut).toBe(lines.length);
  });

  it('ends the text output with the journal path and its report, whose cost is the total cost', async () => {
    const run = await runCli(['demo']);
    expect(run.code).toBe(0);
    const path = /^Journal: (.+) \(switchboard report reads it again\)$/m.exec(run.stdout)?.[1] ?? '';
    expect(path).toMatch(/switchboard-demo-.+journal\.jsonl$/);
    const total = /^total cost: (\$[\d.,]+) over/m.exec(run.stdout)?.[1];
    const report = run.stdout.slice(run.stdout.indexOf('Journal report: '));
    expect(report).toContain(`  cost ${total}`);
    expect(report).toMatch(/^Spend per minute\n {2}\d\d:\d\d \|#+\| \$/m);
    expect(report).toMatch(/│ detector +│ +2 │/);
    const again = await runCli(['report', path]);
    expect(again.stdout).toBe(report);
  });

  it('exits 2 naming --journal when the journal cannot be opened', async () => {
    const run = await runCli(['demo', '--journal', join(directory.path, 'no-such-folder', 'run.jsonl')]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/switchboard: --journal: cannot open the journal for writing: no such file: /);
  });
});
