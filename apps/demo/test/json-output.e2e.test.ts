import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { sharedEmulator } from '@switchboard/test-support';
import { describe, expect, it } from 'vitest';
import { NEVER_STALE_TOML } from './never-stale.js';
import { runCli } from './run-cli.js';
import { tempDirectory } from './temp-directory.js';

const directory = tempDirectory('switchboard-json-');

const KEY = 'json-output-key';

const emulator = sharedEmulator({ key: KEY, emptyJson: [] }, { resetBeforeEach: false });

const live = () => ({ PRIMARY_API_KEY: KEY, PRIMARY_BASE_URL: emulator().url });

describe('--json is machine-readable output on every command', () => {
  it('chat --json prints content, usage, cost and the call records as one document', async () => {
    const config = await directory.file('never-stale.toml', NEVER_STALE_TOML);
    const run = await runCli(['chat', 'Say hello', '--json', '--logprobs', '--config', config], live());
    expect(run.code).toBe(0);
    expect(run.stderr).toBe('');
    const document = JSON.parse(run.stdout);
    expect(document).toMatchObject({
      rule: 'primary',
      provider: 'primary',
      model: 'primary-flash',
      finishReason: 'stop',
      pricedAs: 'primary-flash',
    });
    expect(typeof document.content).toBe('string');
    expect(document.content).not.toBe('');
    expect(typeof document.meanLogprob).toBe('number');
    expect(document.usage).toHaveLength(1);
    expect(document.tokens.output).toBeGreaterThan(0);
    expect(document.costUsd).toBeGreaterThan(0);
    expect(Array.isArray(document.calls)).toBe(true);
  });

  it('chat --json-mode asks for JSON from the provider; --json alone does not', async () => {
    await runCli(['chat', 'Give a verdict', '--json'], live());
    expect(emulator().requests.at(-1)?.body).not.toHaveProperty('response_format');
    const run = await runCli(['chat', 'Give a verdict', '--json-mode', '--json'], live());
    expect(run.code).toBe(0);
    expect(emulator().requests.at(-1)?.body).toMatchObject({ response_format: { type: 'json_object' } });
    expect(() => JSON.parse(JSON.parse(run.stdout).content)).not.toThrow();
  });

  it('chat --json through the scripted client says no usage was recorded', async () => {
    const run = await runCli(['chat', 'findings?', '--json'], { SWITCHBOARD_CLIENT: 'dump' });
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ rule: 'scripted', usage: null, costUsd: null });
  });

  it('models --json lists the ids with the provider', async () => {
    const run = await runCli(['models', '--json'], live());
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({
      provider: 'primary',
      baseUrl: emulator().url,
      models: ['primary-flash', 'primary-v4-pro'],
    });
  });

  it('cost --json gives the totals and the malformed lines, and still exits 2 for them', async () => {
    const log = join(directory.path, 'usage.jsonl');
    await writeFile(log, '{"completion_tokens": 1000000}\n[1]\n');
    const config = await directory.file('never-stale.toml', NEVER_STALE_TOML);
    const run = await runCli(['cost', log, '--model', 'primary-flash', '--json', '--config', config]);
    expect(run.code).toBe(2);
    expect(JSON.parse(run.stdout)).toEqual({
      model: 'primary-flash',
      calls: 1,
      cacheHit: 0,
      cacheMiss: 0,
      output: 1_000_000,
      usd: 1.32,
      models: { 'primary-flash': { calls: 1, cacheHit: 0, cacheMiss: 0, output: 1_000_000, usd: 1.32 } },
      problems: [`${log}:2: expected a usage object, got array`],
      problemCount: 1,
      failedCalls: 0,
    });
    expect(run.stderr.trim()).toBe(
      `switchboard: 1 line in ${log} could not be costed, left out of the total`,
    );
  });

  it('demo --json gives the record, the note on thinking, and the rows', async () => {
    const run = await runCli(['demo', '--json']);
    expect(run.code).toBe(0);
    const document = JSON.parse(run.stdout);
    expect(document.endpoint).toMatchObject({ provider: 'primary', thinking: true });
    expect(document.note).toMatch(/thinking is off by default; the demo turns it on/);
    expect(document.roles.map((role: { role: string }) => role.role)).toEqual([
      'detector',
      'classifier',
      'judge',
      'proposer',
      'rejected-model',
      'triage',
    ]);
    expect(document.total.usd).toBeGreaterThan(0);
  });

  it('resolve --json and prices --json stay JSON', async () => {
    expect(JSON.parse((await runCli(['resolve', '--json'], live())).stdout).rule).toBe('primary');
    expect(JSON.parse((await runCli(['prices', '--json'])).stdout).models).toHaveProperty('primary-flash');
  });
});
