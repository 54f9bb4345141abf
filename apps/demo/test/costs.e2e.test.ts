import { type Emulator, startEmulator } from '@switchboard/emulator';
import { costOf, PRICES_VERSION, priceOf } from '@switchboard/prices';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NEVER_STALE_TOML } from './never-stale.js';
import { runCli } from './run-cli.js';
import { tempDirectory } from './temp-directory.js';

// Issue 11 in the built CLI: every figure priced by the model of its own call or line.

const directory = tempDirectory('switchboard-costs-');
const file = directory.file;
const KEY = 'e2e-costs-key';

let primary: Emulator;
let gateway: Emulator;

/** A reply for a model the emulator does not serve, sent whole as a fault's body. */
const labReply = {
  model: 'lab-model',
  contentType: 'application/json',
  body: JSON.stringify({
    id: 'chatcmpl-lab',
    object: 'chat.completion',
    created: 1,
    model: 'lab-model',
    choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }],
    usage: { prompt_tokens: 1_000_000, completion_tokens: 0 },
  }),
};

beforeAll(async () => {
  primary = await startEmulator({ key: KEY, faults: [labReply] });
  gateway = await startEmulator({ key: KEY, flavor: 'gateway' });
});

afterAll(async () => {
  await Promise.all([primary.close(), gateway.close()]);
});

const primaryEnv = () => ({ PRIMARY_API_KEY: KEY, PRIMARY_BASE_URL: primary.url });
const gatewayEnv = () => ({ GATEWAY_API_KEY: KEY, GATEWAY_BASE_URL: gateway.url });

describe('switchboard chat', () => {
  it('--json gives the cost at the called model price, its source and the records', async () => {
    const run = await runCli(['chat', 'hello', '--model', 'primary-v4-pro', '--json'], primaryEnv());
    expect(run.code).toBe(0);
    const document = JSON.parse(run.stdout);
    const [record] = document.calls;
    expect(document).toMatchObject({
      pricedAs: 'primary-v4-pro',
      priceSource: 'table',
      providerCostUsd: null,
    });
    expect(record).toMatchObject({ pricedAs: 'primary-v4-pro', priceVersion: PRICES_VERSION });
    expect(document.costUsd).toBeCloseTo(costOf(priceOf('primary-v4-pro'), record.usage) as number, 15);
  });

  it('shows the gateway-reported cost beside the table price', async () => {
    const run = await runCli(['chat', 'hello', '--model', 'primary-v4-pro'], gatewayEnv());
    expect(run.code).toBe(0);
    expect(run.stderr).toMatch(
      /cost \$0\.\d{9} \(primary-v4-pro prices, price table checked 2026-11-22; the provider reported \$0\.\d{9}\)/,
    );
    const json = await runCli(['chat', 'hello', '--model', 'primary-v4-pro', '--json'], gatewayEnv());
    const document = JSON.parse(json.stdout);
    expect(document.providerCostUsd).toBe(document.calls[0].usage.cost);
    expect(Number.isSafeInteger(document.costNanoUsd)).toBe(true);
    expect(document.costUsd).toBe(document.costNanoUsd / 1e9);
  });
});

describe('switchboard chat on a model the shipped table does not price', () => {
  it('warns, shows no cost and exits 0 without a price entry', async () => {
    const run = await runCli(['chat', 'hello', '--model', 'lab-model'], primaryEnv());
    expect(run.code).toBe(0);
    expect(run.stderr).toMatch(/^switchboard: warning: no price recorded for model "lab-model"/m);
    expect(run.stderr).toMatch(/cost unpriced \(no price for model "lab-model": counted as \$0\)/);
    // The library's own warning of the same model is not said twice, nor in Node's form.
    expect(run.stderr).not.toMatch(/SWITCHBOARD_UNPRICED_MODEL|Warning:/);
  });

  it("costs it at the config's [prices] entry", async () => {
    const config = await file(
      'chat-lab.toml',
      '[prices."lab-model"]\ncache_hit_per_m = 0\ninput_per_m = 2\noutput_per_m = 0\n',
    );
    const run = await runCli(['chat', 'hello', '--model', 'lab-model', '--config', config], primaryEnv());
    expect(run.code).toBe(0);
    expect(run.stderr).not.toMatch(/warning/);
    // The price came from the configuration, not the price table: the cost line names the entry.
    expect(run.stderr).toContain(`cost $2.000000000 (lab-model prices, [prices."lab-model"] of ${config})`);
  });

  it('names the config entry that replaced a shipped price, and says so once, where the call was priced', async () => {
    const config = await file(
      'chat-replaced.toml',
      `${NEVER_STALE_TOML}[prices."primary-flash"]\ncache_hit_per_m = 0.02\ninput_per_m = 0.5\noutput_per_m = 1.5\n`,
    );
    const run = await runCli(['chat', 'hello', '--model', 'primary-flash', '--config', config], primaryEnv());
    expect(run.code).toBe(0);
    expect(run.stderr).toContain(`(primary-flash prices, [prices."primary-flash"] of ${config})`);
    expect(run.stderr.match(/replaces the shipped price of primary-flash/g)).toHaveLength(1);
    // A call on another model is priced from the shipped table: nothing to say about the entry.
    const other = await runCli(
      ['chat', 'hello', '--model', 'primary-v4-pro', '--config', config],
      primaryEnv(),
    );
    expect(other.code).toBe(0);
    expect(other.stderr).toMatch(/\(primary-v4-pro prices, price table checked \d{4}-\d\d-\d\d\)/);
    expect(other.stderr).not.toContain('replaces the shipped price');
  });
});

describe('switchboard prices', () => {
  it('--at shows the prices in force then, with the band', async () => {
    const run = await runCli(['prices', '--at', '2026-06-03T10:00:00+08:00']);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/primary-v4-pro\s+│\s+0\.044\s+│\s+1\.32\s+│\s+3\.96\s+│ flat/);
    expect(run.stdout).toMatch(/in force at 2026-06-03T02:00:00\.000Z/);
  });

  it('--json names the time and each tariff, and adds the config entries', async () => {
    const config = await file(
      'prices.toml',
      '[prices."lab-model"]\ncache_hit_per_m = 0.1\ninput_per_m = 1\noutput_per_m = 4\n',
    );
    const run = await runCli(['prices', '--at', '2026-06-03T02:00:00Z', '--json', '--config', config]);
    expect(run.code).toBe(0);
    const document = JSON.parse(run.stdout);
    expect(document.at).toBe('2026-06-03T02:00:00.000Z');
    expect(document.models['lab-model']).toEqual({ cacheHitPerM: 0.1, inputPerM: 1, outputPerM: 4 });
    expect(document.tariffs['primary-flash']).toBeNull();
  });

  it.each([['tomorrow'], ['2026-06-03T10:00:00']])('exits 2 for --at %s, naming the option', async (at) => {
    const run = await runCli(['prices', '--at', at]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/^switchboard: --at: expected an ISO time with its offset/);
  });
});

describe('switchboard cost', () => {
  it("prices each line by its own model, the default model for lines without one, and a record's usage", async () => {
    const log = await file(
      'models.jsonl',
      [
        '{"model": "primary-v4-pro", "at": "2026-06-03T02:00:00Z", "prompt_tokens": 1000000}',
        '{"prompt_tokens": 1000000}',
        '{"model": "primary-flash", "usage": {"completion_tokens": 1000000}, "costUsd": 1.32}',
      ].join('\n'),
    );
    const run = await runCli(['cost', log, '--model', 'primary-flash', '--json']);
    expect(run.code).toBe(0);
    const document = JSON.parse(run.stdout);
    expect(document.models['primary-v4-pro'].usd).toBeCloseTo(1.32, 12);
    expect(document.models['primary-flash'].usd).toBeCloseTo(0.44 + 1.32, 12);
    expect(document.usd).toBeCloseTo(1.32 + 0.44 + 1.32, 12);
  });

  it('names every line it cannot cost, with why, warns once per unpriced model and exits 2', async () => {
    const log = await file(
      'bad.jsonl',
      [
        '{"model": "primary-flash", "prompt_tokens": 10}',
        '{"foo": 1}',
        '{"prompt_tokens": "12"}',
        '{"completion_tokens": -5}',
        '{"model": "mystery-model", "prompt_tokens": 10}',
        '{"model": "mystery-model", "prompt_tokens": 20}',
        '{"model": "primary-flash", "at": "soon", "prompt_tokens": 10}',
      ].join('\n'),
    );
    const config = await file('never-stale.toml', NEVER_STALE_TOML);
    const run = await runCli(['cost', log, '--model', 'primary-flash', '--config', config]);
    expect(run.code).toBe(2);
    // Each problem once, prefixed like every line the CLI writes to stderr.
    expect(run.stderr.split('\n')).toEqual([
      'switchboard: warning: no price recorded for model "mystery-model"; add [prices."mystery-model"] to a --config file',
      `switchboard: ${log}:2: no token fields (expected one of prompt_tokens, completion_tokens, prompt_cache_hit_tokens, prompt_cache_miss_tokens)`,
      `switchboard: ${log}:3: prompt_tokens: expected a whole number >= 0, got string "12"`,
      `switchboard: ${log}:4: completion_tokens: expected a whole number >= 0, got -5`,
      `switchboard: ${log}:5: no price for model "mystery-model"`,
      `switchboard: ${log}:6: no price for model "mystery-model"`,
      `switchboard: ${log}:7: at: expected an ISO time, got string "soon"`,
      `switchboard: 6 lines in ${log} could not be costed, left out of the total`,
      '',
    ]);
    expect(run.stdout).toMatch(/total: \$0\.000004400 over 1 call/);
  });

  it('lists the first 20 problems once each, then how many more, then the failed calls, all prefixed', async () => {
    const lines = [
      ...Array.from({ length: 25 }, () => 'not json'),
      '{"model": "primary-flash", "usage": null, "outcome": "error", "error": {"kind": "auth"}}',
    ];
    const log = await file('many.jsonl', lines.join('\n'));
    const run = await runCli(['cost', log]);
    expect(run.code).toBe(2);
    const stderr = run.stderr.trimEnd().split('\n');
    expect(stderr).toHaveLength(20 + 3);
    for (const [index, line] of stderr.slice(0, 20).entries()) {
      expect(line).toMatch(new RegExp(`^switchboard: .*many\\.jsonl:${index + 1}: not valid JSON `));
    }
    expect(stderr.slice(20)).toEqual([
      'switchboard: … and 5 more',
      'switchboard: 1 failed call without usage: nothing to cost',
      `switchboard: 25 lines in ${log} could not be costed, left out of the total`,
    ]);
  });

  it('warns once per model for lines priced from an entry older than [pricing] stale_after_days at their time', async () => {
    // A config entry and lines at fixed times: the same output on any date, whatever the shipped table's dates.
    const prices =
      '[prices."lab-model"]\ncache_hit_per_m = 0\ninput_per_m = 2\noutput_per_m = 0\nchecked_at = 2026-01-01\n';
    const log = await file(
      'dated.jsonl',
      [
        // 90 days after 2026-01-01: not stale yet.
        '{"model": "lab-model", "at": "2026-04-01T23:00:00Z", "prompt_tokens": 10}',
        '{"model": "lab-model", "at": "2026-04-02T00:00:00Z", "prompt_tokens": 10}',
        '{"model": "lab-model", "at": "2026-09-01T00:00:00Z", "prompt_tokens": 10}',
      ].join('\n'),
    );
    const dated = await file('dated.toml', prices);
    const stale = await runCli(['cost', log, '--config', dated]);
    expect(stale.code).toBe(0);
    // The hint points at the entry that priced the lines: the config file's, not @switchboard/prices.
    expect(stale.stderr).toBe(
      `switchboard: warning: the price of "lab-model" was last checked 2026-01-01, 91 days before this call (stale after 90): its costs may not be what the provider bills. It comes from [prices."lab-model"] of ${dated}: check the price and update that entry's figures and checked_at\n`,
    );
    const relaxed = await file('dated-relaxed.toml', `[pricing]\nstale_after_days = 365\n${prices}`);
    const quiet = await runCli(['cost', log, '--config', relaxed]);
    expect(quiet).toMatchObject({ code: 0, stderr: '' });
    expect(quiet.stdout).toBe(stale.stdout);
  });

  it("prices a model of the config's [prices] entries, and a line's provider cost when it has no price", async () => {
    const config = await file(
      'lab.toml',
      '[prices."lab-model"]\ncache_hit_per_m = 0\ninput_per_m = 2\noutput_per_m = 0\n',
    );
    const log = await file(
      'lab.jsonl',
      [
        '{"model": "lab-model", "prompt_tokens": 1000000}',
        '{"model": "gateway-only", "prompt_tokens": 5, "cost": 0.25}',
      ].join('\n'),
    );
    const run = await runCli(['cost', log, '--config', config, '--json']);
    expect(run.code).toBe(0);
    const document = JSON.parse(run.stdout);
    expect(document.models['lab-model'].usd).toBe(2);
    expect(document.models['gateway-only'].usd).toBe(0.25);
    expect(document.problems).toEqual([]);
  });
});
