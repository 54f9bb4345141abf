import { type Emulator, startEmulator } from '@switchboard/emulator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './run-cli.js';
import { tempDirectory } from './temp-directory.js';

const directory = tempDirectory('switchboard-prices-announced-');
let gateway: Emulator;
beforeAll(async () => {
  gateway = await startEmulator({ flavor: 'gateway' });
});
afterAll(() => gateway.close());

// A lab model at 0.1 / 1 / 4, a rise announced for 2027-01-01 and one for 2027-06-01 that was called off.
const toml = (header: string, fields: Record<string, string | number>) =>
  `${header}\n${Object.entries(fields)
    .map(([key, value]) => `${key} = ${value}`)
    .join('\n')}\n`;
const TARIFF = '[[prices."lab-model".tariffs]]';
const NOTICE = `"the lab's notice of 2026-11-15"`;
const LAB = [
  toml('[pricing]', { stale_after_days: 'inf' }),
  toml('[prices."lab-model"]', {
    cache_hit_per_m: 0.1,
    input_per_m: 1,
    output_per_m: 4,
    checked_at: '2026-11-20',
  }),
  toml(TARIFF, {
    effective_from: '2027-01-01',
    cache_hit_per_m: 0.15,
    input_per_m: 1.5,
    output_per_m: 6,
    source: NOTICE,
    checked_at: '2026-11-20',
  }),
  toml(TARIFF, {
    effective_from: '2027-06-01',
    cache_hit_per_m: 0.3,
    input_per_m: 3,
    output_per_m: 12,
    source: NOTICE,
  }),
  toml(TARIFF, {
    effective_from: '2027-06-01',
    cancelled: 'true',
    source: `"the lab's notice of 2026-11-25"`,
  }),
].join('\n');
const listed = { prompt: '0.000001', completion: '0.000004', input_cache_read: '0.0000001' };

describe('announced price changes', () => {
  it('switchboard prices shows them under their model, and --json rows carry the next one', async () => {
    const config = await directory.file('lab.toml', LAB);
    const json = await runCli(['prices', '--json', '--at', '2026-12-10T00:00:00Z', '--config', config]);
    expect(json.code).toBe(0);
    const rows = Object.fromEntries(
      JSON.parse(json.stdout).rows.map((row: { model: string }) => [row.model, row]),
    );
    expect(rows['lab-model'].announced).toEqual({
      effectiveFrom: '2027-01-01T00:00:00.000Z',
      source: "the lab's notice of 2026-11-15",
    });
    expect(rows['lab-model'].inputPerM).toBe(1);
    expect(rows['primary-flash'].announced).toBeNull();
    const text = await runCli(['prices', '--at', '2026-12-10T00:00:00Z', '--config', config]);
    expect(text.stdout).toMatch(
      /> from 2027-01-01T00:00:00\.000Z, announced: the lab's notice of 2026-11-15\s+│\s+0\.15\s+│\s+1\.5\s+│\s+6\s+│/,
    );
    expect(text.stdout).toMatch(
      /> from 2027-06-01T00:00:00\.000Z, cancelled: the lab's notice of 2026-11-25\s+│\s+-\s+│/,
    );
    // After its date the change is the price in force, and no longer announced.
    const after = await runCli(['prices', '--json', '--at', '2027-02-01T00:00:00Z', '--config', config]);
    const later = JSON.parse(after.stdout).rows.find((row: { model: string }) => row.model === 'lab-model');
    expect(later).toMatchObject({
      inputPerM: 1.5,
      announced: null,
      tariff: { entry: '2027-01-01T00:00:00.000Z' },
    });
  });

  it('prices check compares an announced change with the listing: one it does not schedule is a difference', async () => {
    const config = await directory.file('lab-check.toml', LAB);
    gateway.setFaults([{ path: '/models', listing: { pricing: { 'primary/lab-model': listed } } }]);
    const lacking = await runCli(['prices', 'check', '--gateway', gateway.url, '--json', '--config', config]);
    expect(lacking.code).toBe(1);
    expect(JSON.parse(lacking.stdout).differences).toEqual([
      expect.objectContaining({
        model: 'lab-model',
        field: 'announced[2027-01-01T00:00:00.000Z]',
        ours: '0.15 / 1.5 / 6',
        theirs: null,
      }),
    ]);
    const scheduled = {
      effective_from: '2027-01-01',
      prompt: '0.0000015',
      completion: '0.000006',
      input_cache_read: '0.00000015',
    };
    gateway.setFaults([
      {
        path: '/models',
        listing: { pricing: { 'primary/lab-model': { ...listed, scheduled: [scheduled] } } },
      },
    ]);
    const agreeing = await runCli(['prices', 'check', '--gateway', gateway.url, '--config', config]);
    expect(agreeing.stderr).toBe('');
    expect(agreeing.code).toBe(0);
    gateway.setFaults([
      {
        path: '/models',
        listing: {
          pricing: { 'primary/lab-model': { ...listed, scheduled: [{ ...scheduled, prompt: '0.000002' }] } },
        },
      },
    ]);
    const risen = await runCli(['prices', 'check', '--gateway', gateway.url, '--config', config]);
    expect(risen.code).toBe(1);
    expect(risen.stdout).toMatch(
      /lab-model\s+│ announced\[2027-01-01T00:00:00\.000Z\]\.inputPerM\s+│ 1\.5\s+│ 2\s+│ config, checked 2026-11-20/,
    );
  });

  it('a call after the date at a change no check confirmed since warns SWITCHBOARD_PRICE_DRIFT once', async () => {
    const config = await directory.file('lab-cost.toml', LAB);
    const log = await directory.file(
      'calls.jsonl',
      [
        '{"model": "lab-model", "at": "2026-12-31T00:00:00Z", "prompt_tokens": 10}',
        '{"model": "lab-model", "at": "2027-01-02T00:00:00Z", "prompt_tokens": 10}',
        '{"model": "lab-model", "at": "2027-01-03T00:00:00Z", "prompt_tokens": 10}',
      ].join('\n'),
    );
    const run = await runCli(['cost', log, '--config', config]);
    expect(run.code).toBe(0);
    expect(run.stderr).toBe(
      `switchboard: warning: the price of "lab-model" from 2027-01-01T00:00:00.000Z was announced (last checked 2026-11-20, before it took effect) and no check since confirms it: this call is priced at it, which may not be what the provider bills if the change was called off. Run switchboard prices check, then set that tariff's checked_at, or mark it cancelled = true, in [prices."lab-model"] of ${config}\n`,
    );
    // Checked after it took effect: the change is confirmed, and calls at it say nothing.
    const confirmedLab = LAB.replace(
      /effective_from = 2027-01-01\n([\s\S]*?)checked_at = 2026-11-20/,
      'effective_from = 2026-01-01\n$1checked_at = 2026-01-02',
    );
    const confirmed = await directory.file('lab-confirmed.toml', confirmedLab);
    const quiet = await runCli(['cost', log, '--config', confirmed]);
    expect(quiet).toMatchObject({ code: 0, stderr: '' });
  });
});
