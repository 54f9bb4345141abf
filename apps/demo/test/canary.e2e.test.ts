import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sharedEmulator } from '@switchboard/test-support';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './run-cli.js';

// A unique key per run: if it shows up in any output, the CLI leaked it.
const CANARY = `canary-${randomUUID()}`;
const emulator = sharedEmulator({ key: CANARY }, { resetBeforeEach: false });
let directory: string;

beforeAll(async () => {
  directory = await mkdtemp(join(tmpdir(), 'switchboard-canary-'));
});

afterAll(async () => {
  await rm(directory, { recursive: true, force: true });
});

describe('the API key never appears in CLI output', () => {
  const commands: Array<[string, () => string[], () => Record<string, string>]> = [
    ['demo', () => ['demo'], () => ({ PRIMARY_API_KEY: CANARY })],
    ['resolve', () => ['resolve'], () => ({ PRIMARY_API_KEY: CANARY })],
    ['resolve --json', () => ['resolve', '--json'], () => ({ GATEWAY_API_KEY: CANARY })],
    [
      'chat',
      () => ['chat', 'hello', '--show-reasoning'],
      () => ({ PRIMARY_API_KEY: CANARY, PRIMARY_BASE_URL: emulator().url }),
    ],
    ['models', () => ['models'], () => ({ PRIMARY_API_KEY: CANARY, PRIMARY_BASE_URL: emulator().url })],
    [
      'chat with a wrong key (401)',
      () => ['chat', 'hello'],
      () => ({ PRIMARY_API_KEY: `${CANARY}-wrong`, PRIMARY_BASE_URL: emulator().url }),
    ],
    [
      'chat to an unreachable endpoint',
      () => ['chat', 'hello', '--timeout', '2'],
      () => ({ PRIMARY_API_KEY: CANARY, PRIMARY_BASE_URL: 'http://127.0.0.1:9' }),
    ],
    [
      'chat --json',
      () => ['chat', 'hello', '--json', '--logprobs'],
      () => ({ PRIMARY_API_KEY: CANARY, PRIMARY_BASE_URL: emulator().url }),
    ],
    [
      'chat --json with a wrong key (401)',
      () => ['chat', 'hello', '--json'],
      () => ({ PRIMARY_API_KEY: `${CANARY}-wrong`, PRIMARY_BASE_URL: emulator().url }),
    ],
    [
      'models --json',
      () => ['models', '--json'],
      () => ({ PRIMARY_API_KEY: CANARY, PRIMARY_BASE_URL: emulator().url }),
    ],
    ['demo --json', () => ['demo', '--json'], () => ({ PRIMARY_API_KEY: CANARY })],
    ['prices --json', () => ['prices', '--json'], () => ({ PRIMARY_API_KEY: CANARY })],
    [
      'a typo in SWITCHBOARD_CLIENT',
      () => ['chat', 'hello', '--json'],
      () => ({ PRIMARY_API_KEY: CANARY, SWITCHBOARD_CLIENT: 'scriptd' }),
    ],
    ['prices', () => ['prices'], () => ({ PRIMARY_API_KEY: CANARY })],
    ['--help', () => ['--help'], () => ({ PRIMARY_API_KEY: CANARY })],
  ];

  it.each(commands)('%s', async (_name, args, env) => {
    const run = await runCli(args(), env());
    expect(`${run.stdout}\n${run.stderr}`).not.toContain(CANARY);
    // The run did real work: output exists.
    expect(`${run.stdout}${run.stderr}`.trim()).not.toBe('');
  });

  it('a config naming the key variable', async () => {
    const config = join(directory, 'key-env.toml');
    await writeFile(config, `[models]\nchat_base_url = "${emulator().url}"\nchat_api_key_env = "MY_KEY"\n`);
    for (const args of [
      ['chat', 'hello'],
      ['chat', 'hello', '--json'],
      ['resolve', '--json'],
    ]) {
      const run = await runCli([...args, '--config', config], { MY_KEY: CANARY });
      expect(run.code).toBe(0);
      expect(`${run.stdout}\n${run.stderr}`).not.toContain(CANARY);
    }
  });
});
