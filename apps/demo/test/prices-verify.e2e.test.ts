import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from './run-cli.js';
import { tempDirectory } from './temp-directory.js';

const directory = tempDirectory('switchboard-prices-verify-');

describe('switchboard prices: where each price came from and how old it is', () => {
  it('shows the checked date and the age in days at the time shown', async () => {
    const run = await runCli(['prices', '--at', '2027-03-01T00:00:00Z']);
    expect(run.code).toBe(0);
    // 2026-11-22 to 2027-03-01 is 99 days: past the default 90.
    expect(run.stdout).toMatch(
      /primary-v4-pro\s+│\s+0\.044\s+│\s+1\.32\s+│\s+3\.96\s+│ flat │ 2026-11-22 │ 99 d, stale │/,
    );
    expect(run.stdout).toMatch(
      /stale past 90 days \(\[pricing\] stale_after_days\): 5 stale, calls priced from them warn/,
    );
  });

  it('--json rows carry source, checkedAt, ageDays and stale; config entries, tiers and stale_after_days too', async () => {
    const config = await directory.file(
      'prices.toml',
      [
        '[pricing]',
        'stale_after_days = 30',
        '[prices."lab-model"]',
        'cache_hit_per_m = 0.1',
        'input_per_m = 1',
        'output_per_m = 4',
        'checked_at = 2026-11-01',
        'source = "the lab\'s rate card"',
        '[[prices."lab-model".tiers]]',
        'above_input_tokens = 128_000',
        'cache_hit_per_m = 0.2',
        'input_per_m = 2',
        'output_per_m = 8',
        '[prices."undated-model"]',
        'cache_hit_per_m = 0',
        'input_per_m = 1',
        'output_per_m = 1',
        '',
      ].join('\n'),
    );
    const run = await runCli(['prices', '--json', '--at', '2026-12-10T00:00:00Z', '--config', config]);
    expect(run.code).toBe(0);
    const document = JSON.parse(run.stdout);
    expect(document.staleAfterDays).toBe(30);
    const rows = Object.fromEntries(document.rows.map((row: { model: string }) => [row.model, row]));
    expect(rows['primary-flash']).toEqual({
      model: 'primary-flash',
      cacheHitPerM: 0.014,
      inputPerM: 0.44,
      outputPerM: 1.32,
      tariff: null,
      source: "the primary platform's published list prices",
      origin: 'table',
      checkedAt: '2026-11-22',
      ageDays: 18,
      stale: false,
      announced: null,
    });
    expect(rows['lab-model']).toMatchObject({
      source: "the lab's rate card",
      origin: 'config',
      checkedAt: '2026-11-01',
      ageDays: 39,
      stale: true,
      tiers: [{ aboveInputTokens: 128_000, cacheHitPerM: 0.2, inputPerM: 2, outputPerM: 8 }],
    });
    expect(rows['undated-model']).toMatchObject({
      source: null,
      checkedAt: null,
      ageDays: null,
      stale: false,
    });
    const text = await runCli(['prices', '--at', '2026-12-10T00:00:00Z', '--config', config]);
    expect(text.stdout).toMatch(/ {2}> 128,000 input tokens\s+│\s+0\.2\s+│\s+2\s+│\s+8\s+│/);
    expect(text.stdout).toMatch(/undated-model .*│ -\s+│\s+unknown │/);
  });

  it('warns when a config price shadows a shipped one, and shows which prices came from the configuration', async () => {
    const config = await directory.file(
      'shadow.toml',
      '[prices."primary-flash"]\ncache_hit_per_m = 0.02\ninput_per_m = 0.5\noutput_per_m = 1.5\n',
    );
    const run = await runCli(['prices', '--config', config]);
    expect(run.code).toBe(0);
    expect(run.stderr).toBe(
      `switchboard: warning: ${config}: prices."primary-flash": replaces the shipped price of primary-flash (cache hit / input / output 0.014 / 0.44 / 1.32 USD per million tokens, checked 2026-11-22); calls on it are priced from this entry\n`,
    );
    expect(run.stdout).toContain(`from the configuration (${config} [prices]): primary-flash\n`);
    const rows = JSON.parse((await runCli(['prices', '--json', '--config', config])).stdout).rows;
    expect(rows.find((row: { model: string }) => row.model === 'primary-flash')).toMatchObject({
      origin: 'config',
    });
    expect(rows.find((row: { model: string }) => row.model === 'primary-v4-pro')).toMatchObject({
      origin: 'table',
    });
  });

  it('says a replaced price only where that price is used, not on every command', async () => {
    const config = await directory.file(
      'replaced.toml',
      '[prices."primary-flash"]\ncache_hit_per_m = 0.02\ninput_per_m = 0.5\noutput_per_m = 1.5\n',
    );
    const notice = /replaces the shipped price of primary-flash/g;
    const line = (model: string) => JSON.stringify({ model, at: '2026-11-23T09:00:00Z', prompt_tokens: 10 });
    const journal = await directory.file('replaced.jsonl', `${line('primary-v4-pro')}\n`);
    // Commands that price nothing with it say nothing about it.
    for (const args of [['resolve'], ['models'], ['report', journal]]) {
      const run = await runCli([...args, '--config', config], { SWITCHBOARD_CLIENT: 'scripted' });
      expect(run.stderr, args.join(' ')).not.toMatch(notice);
    }
    // Costing lines of other models: nothing either; lines priced from it: said once.
    const others = await runCli(['cost', journal, '--config', config]);
    expect(others).toMatchObject({ code: 0, stderr: '' });
    const flash = await directory.file('flash.jsonl', `${line('primary-flash')}\n${line('primary-flash')}\n`);
    const priced = await runCli(['cost', flash, '--config', config]);
    expect(priced.code).toBe(0);
    expect(priced.stderr.match(notice)).toHaveLength(1);
  });

  it('names inf as what it is', async () => {
    const config = await directory.file(
      'inf.toml',
      '[prices."lab"]\ncache_hit_per_m = 0\ninput_per_m = inf\noutput_per_m = 1\n',
    );
    const run = await runCli(['prices', '--config', config]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('prices.lab.input_per_m: expected a finite number, got inf');
  });
});

describe('switchboard report --verify', () => {
  it('verifies a clean demo journal, and names the one line whose cost was changed by a nano-dollar', async () => {
    const journal = join(directory.path, 'demo.jsonl');
    const demo = await runCli(['demo', '--journal', journal]);
    expect(demo.code).toBe(0);
    const clean = await runCli(['report', '--verify', journal]);
    expect(clean.stderr).toBe('');
    expect(clean.code).toBe(0);
    expect(clean.stdout).toMatch(
      /^\d+ lines read: (\d+) of \1 priced lines re-derived to the nano-dollar with @switchboard\/prices \d+\.\d+\.\d+; \d+ without a cost to verify; 2 budget scopes checked; numbered lines of 1 process followed, none missing, repeated or out of order\n$/,
    );

    const lines = (await readFile(journal, 'utf8')).trim().split('\n');
    const index = lines.findIndex((text) => JSON.parse(text).costNanoUsd > 0);
    const changed = JSON.parse(lines[index] as string);
    changed.costNanoUsd += 1;
    changed.costUsd = changed.costNanoUsd / 1e9;
    lines[index] = JSON.stringify(changed);
    const tampered = await directory.file('tampered.jsonl', `${lines.join('\n')}\n`);
    const run = await runCli(['report', '--verify', tampered]);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain(
      `tampered.jsonl:${index + 1}: differs: costNanoUsd ${changed.costNanoUsd}, re-derived ${changed.costNanoUsd - 1} from its usage at ${changed.pricedAs}'s`,
    );
    expect(run.stdout.match(/: differs: /g)).toHaveLength(1);
    expect(run.stderr).toBe(`switchboard: 1 line of ${tampered} does not add up\n`);

    const json = await runCli(['report', '--verify', tampered, '--json']);
    expect(json.code).toBe(1);
    const document = JSON.parse(json.stdout);
    expect(document).toMatchObject({ ok: false, differingCount: 1 });
    expect(document.differing[0]).toMatchObject({
      line: index + 1,
      recordedNanoUsd: changed.costNanoUsd,
      derivedNanoUsd: changed.costNanoUsd - 1,
    });
  });

  it('names lines it cannot re-derive, and estimates, failing unless --allow-unverifiable accepts them', async () => {
    const base = {
      v: 1,
      model: 'retired-model',
      usage: { prompt_tokens: 10, completion_tokens: 1 },
      costUsd: 0.00001,
      costNanoUsd: 10_000,
      pricedAs: 'retired-model',
      priceSource: 'table',
      priceVersion: '0.0.1',
      at: '2026-11-23T08:00:00.000Z',
      settlement: 'exact',
    };
    const estimate = {
      ...base,
      model: 'primary-flash',
      pricedAs: 'primary-flash',
      priceSource: 'estimate',
      settlement: 'estimate',
      usage: null,
    };
    const journal = await directory.file(
      'unverifiable.jsonl',
      `${JSON.stringify(base)}\n${JSON.stringify(estimate)}\n`,
    );
    const strict = await runCli(['report', '--verify', journal]);
    expect(strict.code).toBe(1);
    expect(strict.stderr).toBe(
      'switchboard: cannot be verified: 2 lines without a number, 1 line whose cost cannot be re-derived, 1 estimate (--allow-unverifiable accepts such lines, still naming why)\n',
    );
    const run = await runCli(['report', '--verify', journal, '--allow-unverifiable']);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(
      'unverifiable.jsonl:1: unverifiable: the installed price data has no price for retired-model at 2026-11-23T08:00:00.000Z: priced by an entry it no longer knows',
    );
    expect(run.stdout).toContain(
      '1 estimate (a stream that ended without usage; its cost is a lower bound from what was received), not re-derivable from usage: lines 2',
    );
  });

  it('refuses --verify with --since, --until or --html', async () => {
    const run = await runCli(['report', '--verify', 'x.jsonl', '--since', '2026-01-01']);
    expect(run.code).toBe(2);
    expect(run.stderr).toBe('switchboard: --verify checks every line of the journal: it takes no --since\n');
  });
});

describe('switchboard report: prices and the provider’s figures', () => {
  it('says how much was priced from stale entries, with [pricing] stale_after_days', async () => {
    const line = {
      v: 1,
      model: 'primary-flash',
      usage: { prompt_tokens: 100, completion_tokens: 10 },
      costUsd: 0.0000572,
      costNanoUsd: 57_200,
      pricedAs: 'primary-flash',
      priceSource: 'table',
      priceCheckedAt: '2026-11-22',
      at: '2027-03-01T00:00:00.000Z',
      settlement: 'exact',
    };
    const journal = await directory.file('stale.jsonl', `${JSON.stringify(line)}\n`);
    const run = await runCli(['report', journal]);
    expect(run.stdout).toContain(
      'stale: 1 call priced from an entry checked more than 90 days before the call, $0.000057200 (100.0% of the priced cost): primary-flash',
    );
    const config = await directory.file('stale.toml', '[pricing]\nstale_after_days = 120\n');
    const relaxed = await runCli(['report', journal, '--json', '--config', config]);
    expect(JSON.parse(relaxed.stdout).priceAge).toMatchObject({ staleAfterDays: 120, staleCalls: 0 });
  });
});
