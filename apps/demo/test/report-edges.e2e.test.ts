import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { handMadeLine } from './hand-made-line.js';
import { runCli } from './run-cli.js';
import { tempDirectory } from './temp-directory.js';

// Issue 40.16: `report --verify` crashed ("a bug") on a line whose budget limit is 1e308, and
// `report --html -` wrote a file named `-` where `-` means stdin or stdout everywhere else.

const directory = tempDirectory('switchboard-report-edges-');

const line = handMadeLine;

describe('switchboard report --verify on budget limits no budget can have', () => {
  it('names limitUsd 1e308, -1 and "x" with their lines and exits 1, instead of failing as a bug', async () => {
    const journal = await directory.file(
      'limits.jsonl',
      [
        line({ budgets: [{ scope: 'run', limitUsd: 1e308 }] }),
        line({ budgets: [{ scope: 'run', limitUsd: -1 }] }),
        line({ budgets: [{ scope: 'run', limitUsd: 'x' }] }),
        line({ budgets: [{ scope: 'run', limitUsd: 1 }] }),
      ].join('\n'),
    );
    // Lines made by hand carry no number: accepted, so that only the budget entries fail.
    const run = await runCli(['report', '--verify', journal, '--allow-unverifiable']);
    expect(run.stderr).not.toContain('a bug');
    expect(run.code).toBe(1);
    const expected =
      'is not a limit (expected null or a number of USD from 0 to 9,007,199), so its spend cannot be checked';
    expect(run.stdout).toContain(`limits.jsonl:1: budget scope "run": limitUsd 1e+308 ${expected}`);
    expect(run.stdout).toContain(`limits.jsonl:2: budget scope "run": limitUsd -1 ${expected}`);
    expect(run.stdout).toContain(`limits.jsonl:3: budget scope "run": limitUsd "x" ${expected}`);
    expect(run.stdout).toContain('4 lines read: 4 of 4 priced lines re-derived to the nano-dollar');
    expect(run.stderr).toBe(`switchboard: 3 budget entries with a limit or scope no budget can have\n`);
    const json = JSON.parse(
      (await runCli(['report', '--verify', journal, '--json', '--allow-unverifiable'])).stdout,
    );
    expect(json).toMatchObject({ ok: false, budgets: { scopes: 1, invalidCount: 3 } });
  });
});

describe('switchboard report --html -', () => {
  it('writes the page to stdout instead of the text report, and no file named -', async () => {
    const journal = await directory.file('html.jsonl', `${line()}\n`);
    const run = await runCli(['report', journal, '--html', '-'], {}, '', directory.path);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^<!doctype html>/i);
    expect(run.stdout).toContain('data-figure="totals.cost">$0.000011000<');
    expect(existsSync(join(directory.path, '-'))).toBe(false);
  });

  it('reads the journal from stdin and writes the page to stdout', async () => {
    const run = await runCli(['report', '-', '--html', '-'], {}, `${line()}\n`, directory.path);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('data-figure="totals.cost">$0.000011000<');
    expect(existsSync(join(directory.path, '-'))).toBe(false);
  });

  it('refuses --html - with --json: both would go to stdout', async () => {
    const journal = await directory.file('both.jsonl', `${line()}\n`);
    const run = await runCli(['report', journal, '--html', '-', '--json']);
    expect(run.code).toBe(2);
    expect(run.stderr).toBe(
      'switchboard: --html -: writes the HTML report to stdout, where --json writes too: give one of them, or --html FILE\n',
    );
  });
});
