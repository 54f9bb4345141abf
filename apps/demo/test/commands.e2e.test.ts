import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { sharedEmulator } from '@switchboard/test-support';
import { describe, expect, it } from 'vitest';
import { runCli } from './run-cli.js';
import { tempDirectory } from './temp-directory.js';

const directory = tempDirectory('switchboard-cli-');
const file = directory.file;

const EMULATOR_KEY = 'e2e-emulator-key';

const emulator = sharedEmulator({ key: EMULATOR_KEY }, { resetBeforeEach: false });

describe('switchboard resolve', () => {
  it.each([
    ['scripted', { SWITCHBOARD_CLIENT: ' Dump ' }, { provider: 'scripted', baseUrl: '', prices: null }],
    ['primary', { PRIMARY_API_KEY: 'k' }, { provider: 'primary', baseUrl: 'https://api.primary.example' }],
    ['gateway', { GATEWAY_API_KEY: 'k' }, { provider: 'gateway', baseUrl: 'https://gateway.example/api/v1' }],
  ])('names the %s rule and prints its record', async (rule, env, record) => {
    const run = await runCli(['resolve', '--json'], env);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ rule, endpoint: record });
  });

  it('names the configured rule for a TOML config with chat_base_url', async () => {
    const config = await file(
      'configured.toml',
      '[models]\nchat_base_url = "https://llm.internal.example/"\n',
    );
    const run = await runCli(['resolve', '--config', config], { PRIMARY_API_KEY: 'k' });
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/resolved by rule: configured/);
    expect(run.stdout).toContain('"baseUrl": "https://llm.internal.example"');
    expect(run.stdout).toContain('"provider": "custom"');
  });

  it('reads a JSON config too', async () => {
    const config = await file(
      'config.json',
      JSON.stringify({ models: { thinking: true }, scan: { depth: 2 } }),
    );
    const run = await runCli(['resolve', '--json', '--config', config], { PRIMARY_API_KEY: 'k' });
    expect(JSON.parse(run.stdout).endpoint).toMatchObject({ provider: 'primary', thinking: true });
  });

  it('exits 2 (bad input) with a one-line reason when nothing resolves', async () => {
    const run = await runCli(['resolve']);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    expect(run.stderr).toMatch(/^switchboard: no chat endpoint: set PRIMARY_API_KEY/);
    expect(run.stderr).not.toContain('--config');
  });

  it('reads ./switchboard.toml by default, as loadConfig() does, and says so', async () => {
    const project = join(directory.path, 'with-toml');
    await mkdir(project, { recursive: true });
    await writeFile(join(project, 'switchboard.toml'), '[models]\nchat_base_url = "http://127.0.0.1:9"\n');
    const run = await runCli(['resolve'], {}, '', project);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(
      /^resolved by rule: configured\nconfig: switchboard\.toml \(read by default from the working directory\)\n/,
    );
    const json = await runCli(['resolve', '--json'], {}, '', project);
    expect(JSON.parse(json.stdout)).toMatchObject({
      rule: 'configured',
      config: 'switchboard.toml',
      endpoint: { provider: 'custom', baseUrl: 'http://127.0.0.1:9' },
    });
    const named = await runCli(['resolve', '--config', 'switchboard.toml'], {}, '', project);
    expect(named.stdout).toContain('\nconfig: switchboard.toml\n');
    const none = await runCli(['resolve', '--json'], { PRIMARY_API_KEY: 'k' });
    expect(JSON.parse(none.stdout)).toMatchObject({ rule: 'primary', config: null });
  });

  it('holds the default file to the same checks as --config: a typo in it is warned about, a bad value exits 2', async () => {
    const project = join(directory.path, 'with-bad-toml');
    await mkdir(project, { recursive: true });
    await writeFile(join(project, 'switchboard.toml'), '[models]\nthinkng = true\n');
    const warned = await runCli(['resolve'], { PRIMARY_API_KEY: 'k' }, '', project);
    expect(warned.code).toBe(0);
    expect(warned.stderr).toBe(
      'switchboard: warning: switchboard.toml: models.thinkng: unknown key, did you mean "thinking"?\n',
    );
    await writeFile(join(project, 'switchboard.toml'), '[models]\nthinking = "yes"\n');
    const refused = await runCli(['chat', 'hello'], { PRIMARY_API_KEY: 'k' }, '', project);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toBe(
      'switchboard: switchboard.toml: models.thinking: expected boolean, got string\n',
    );
  });
});

describe('a bad config file', () => {
  it('exits 2 naming the file, the key and what was expected', async () => {
    const config = await file('bad.toml', '[models]\nthinking = "yes"\n');
    const run = await runCli(['resolve', '--config', config], { PRIMARY_API_KEY: 'k' });
    expect(run.code).toBe(2);
    expect(run.stderr.trim()).toBe(`switchboard: ${config}: models.thinking: expected boolean, got string`);
  });

  it('exits 2 naming the file for TOML that does not parse', async () => {
    const config = await file('broken.toml', '[models\nthinking = true\n');
    const run = await runCli(['resolve', '--config', config]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/^switchboard: .*broken\.toml:1:8: not valid TOML: /);
  });

  it('exits 2 for a config file that does not exist', async () => {
    const run = await runCli(['resolve', '--config', join(directory.path, 'missing.toml')]);
    expect(run.code).toBe(2);
    expect(run.stderr.trim()).toBe(
      `switchboard: cannot read the config file: no such file: ${join(directory.path, 'missing.toml')}`,
    );
  });
});

describe('switchboard chat and models against the emulator', () => {
  const env = () => ({ PRIMARY_API_KEY: EMULATOR_KEY, PRIMARY_BASE_URL: emulator().url });

  it('makes one call and prints content, usage and cost', async () => {
    const run = await runCli(['chat', 'Say hello to the switchboard', '--logprobs'], env());
    expect(run.code).toBe(0);
    expect(run.stdout.trim()).not.toBe('');
    expect(run.stderr).toMatch(/model primary-flash · provider primary · finish stop/);
    expect(run.stderr).toMatch(/mean logprob -\d+\.\d{4}/);
    expect(run.stderr).toMatch(/tokens \d+ cache hit \/ \d+ cache miss \/ \d+ output/);
    expect(run.stderr).toMatch(/cost \$0\.\d{9}/);
    const body = emulator().requests.at(-1)?.body as Record<string, unknown>;
    expect(body).toMatchObject({ model: 'primary-flash', thinking: { type: 'disabled' }, logprobs: true });
  });

  it('caps the answer with --max-tokens and sends JSON mode with --json-mode', async () => {
    const run = await runCli(
      ['chat', 'Give a verdict', '--json-mode', '--max-tokens', '3', '--temperature', '0.5'],
      env(),
    );
    expect(run.code).toBe(0);
    const body = emulator().requests.at(-1)?.body as Record<string, unknown>;
    expect(body).toMatchObject({ max_tokens: 3, temperature: 0.5, response_format: { type: 'json_object' } });
  });

  it('shows reasoning with --show-reasoning when thinking is on', async () => {
    const config = await file('thinking.toml', '[models]\nthinking = true\n');
    const run = await runCli(['chat', 'Why?', '--show-reasoning', '--config', config], env());
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/reasoning: (?!\(none\)).+/);
  });

  it("costs a call on another model at that model's price and says so (issue 11)", async () => {
    const run = await runCli(['chat', 'hello', '--model', 'primary-v4-pro'], env());
    expect(run.code).toBe(0);
    expect(run.stderr).toMatch(
      /model primary-v4-pro · .* cost \$0\.\d{9} \(primary-v4-pro prices, price table checked \d{4}-\d\d-\d\d\)/,
    );
    expect(run.stderr).not.toMatch(/priced as primary-flash/);
  });

  it('exits 2 naming the option for a bad --max-tokens', async () => {
    const run = await runCli(['chat', 'x', '--max-tokens', '0'], env());
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/--max-tokens: expected a positive whole number, got '0'/);
  });

  it('reports a rejected model as a typed error, exit 1', async () => {
    const run = await runCli(['chat', 'x', '--model', 'primary-v4.1-flash'], env());
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^switchboard: model_rejected: .*primary-flash, primary-v4-pro/);
  });

  it('lists the endpoint models', async () => {
    const run = await runCli(['models'], env());
    expect(run.code).toBe(0);
    expect(run.stdout.trim().split('\n')).toEqual(['primary-flash', 'primary-v4-pro']);
  });

  it('refuses to list models of the scripted client as bad input (exit 2), not as a failed call', async () => {
    const run = await runCli(['models'], { SWITCHBOARD_CLIENT: 'scripted' });
    expect(run.code).toBe(2);
    expect(run.stderr).toBe(
      "switchboard: SWITCHBOARD_CLIENT selects the scripted client, which has no model listing: unset it to list a provider's models\n",
    );
    const json = await runCli(['models', '--json'], { SWITCHBOARD_CLIENT: 'scripted' });
    expect(JSON.parse(json.stdout)).toMatchObject({ error: { exitCode: 2 } });
  });
});

describe('switchboard cost', () => {
  it('costs out a usage log with a total', async () => {
    const log = await file(
      'usage.jsonl',
      [
        JSON.stringify({
          prompt_cache_hit_tokens: 1_000_000,
          prompt_cache_miss_tokens: 1_000_000,
          completion_tokens: 1_000_000,
        }),
        '',
        JSON.stringify({ prompt_tokens: 1_000_000, completion_tokens: 0 }),
      ].join('\n'),
    );
    const run = await runCli(['cost', log, '--model', 'primary-flash']);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/total: \$2\.214000000 over 2 calls/);
  });

  it('names the line number of each malformed line, still prints the total and exits 2', async () => {
    const log = await file(
      'mixed.jsonl',
      `{"completion_tokens": 1000000}\nnot json\n[1,2]\n{"prompt_tokens": 1000000}\n`,
    );
    const run = await runCli(['cost', log, '--model', 'primary-flash']);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(new RegExp(`${log}:2: not valid JSON`));
    expect(run.stderr).toMatch(new RegExp(`${log}:3: expected a usage object, got array`));
    expect(run.stdout).toMatch(/total: \$1\.760000000 over 2 calls/);
  });

  it('exits 2 for a model without a recorded price', async () => {
    const log = await file('one.jsonl', '{"prompt_tokens": 1}\n');
    const run = await runCli(['cost', log, '--model', 'mystery-model']);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(
      /^switchboard: --model: no price recorded for model "mystery-model"; priced models: primary-flash/,
    );
  });
});

describe('help and version', () => {
  it.each(['demo', 'resolve', 'chat', 'prices', 'models', 'cost', 'report'])(
    'prints help for %s',
    async (command) => {
      const run = await runCli([command, '--help']);
      expect(run.code).toBe(0);
      expect(run.stdout).toMatch(new RegExp(`Usage: switchboard ${command}`));
    },
  );

  it('prints the version', async () => {
    const run = await runCli(['--version']);
    expect(run.code).toBe(0);
    expect(run.stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
  });

  it('prints the price table', async () => {
    const run = await runCli(['prices']);
    expect(run.stdout).toMatch(/primary-v4-pro\s+│\s+0\.044\s+│\s+1\.32\s+│\s+3\.96/);
  });
});
