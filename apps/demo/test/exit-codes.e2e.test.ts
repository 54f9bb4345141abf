import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { startEmulator } from '@switchboard/emulator';
import { sharedEmulator } from '@switchboard/test-support';
import { beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './run-cli.js';
import { tempDirectory } from './temp-directory.js';

const directory = tempDirectory('switchboard-exit-');

const KEY = 'exit-codes-key';
const emulator = sharedEmulator({ key: KEY }, { resetBeforeEach: false });
let usageLog: string;

beforeAll(async () => {
  usageLog = join(directory.path, 'usage.jsonl');
  await writeFile(usageLog, '{"prompt_tokens": 1}\n');
});

const live = () => ({ PRIMARY_API_KEY: KEY, PRIMARY_BASE_URL: emulator().url });

describe('every bad input exits 2 with the switchboard: prefix', () => {
  const cases: Array<[string, () => string[], () => Record<string, string>, RegExp]> = [
    ['an unknown option', () => ['chat', 'x', '--bogus'], live, /^switchboard: unknown option '--bogus'/],
    ['an unknown command', () => ['no-such-command'], () => ({}), /^switchboard: unknown command/],
    ['a missing prompt', () => ['chat'], live, /^switchboard: missing required argument 'prompt'/],
    [
      'cost of a line without a model, and no --model',
      () => ['cost', usageLog],
      () => ({}),
      /:1: no model: the line has no "model" and no --model was given\nswitchboard: 1 line in /,
    ],
    [
      'an invalid PRIMARY_BASE_URL',
      () => ['resolve'],
      () => ({ PRIMARY_API_KEY: KEY, PRIMARY_BASE_URL: 'not-a-url' }),
      /^switchboard: PRIMARY_BASE_URL: expected an absolute http\(s\) URL, got "not-a-url"/,
    ],
    [
      'a --timeout that is not a number',
      () => ['chat', 'x', '--timeout', 'soon'],
      live,
      /^switchboard: --timeout 'soon': .*must be a positive finite number of seconds/,
    ],
    [
      'a --timeout of 0',
      () => ['chat', 'x', '--timeout', '0'],
      live,
      /^switchboard: --timeout '0': .*must be a positive finite number of seconds/,
    ],
    [
      "a --timeout past Node's timer range",
      () => ['chat', 'x', '--timeout', '99999999'],
      live,
      /^switchboard: --timeout '99999999': .*must be at most \d+ seconds/,
    ],
    [
      'a --temperature out of range',
      () => ['chat', 'x', '--temperature', '3'],
      live,
      /^switchboard: --temperature: expected a number from 0 to 2, got '3'/,
    ],
  ];

  it.each(cases)('%s', async (_name, args, env, message) => {
    const before = emulator().requests.length;
    const run = await runCli(args(), env());
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(message);
    expect(run.stderr).not.toMatch(/^error:|unexpected error/m);
    // Bad input is refused before anything goes on the wire.
    expect(emulator().requests.length).toBe(before);
  });
});

describe('a typo in SWITCHBOARD_CLIENT never goes live', () => {
  it('refuses an unrecognised value with a key set, naming the accepted values, and sends nothing', async () => {
    const before = emulator().requests.length;
    const run = await runCli(['chat', 'hello'], { ...live(), SWITCHBOARD_CLIENT: 'scriptd' });
    expect(run.code).toBe(2);
    expect(run.stderr.trim()).toBe(
      'switchboard: SWITCHBOARD_CLIENT: unrecognised value "scriptd": expected one of scripted, script, dump, dump-only, unsafe, unsafe-snippet (unset it to call a provider)',
    );
    expect(emulator().requests.length).toBe(before);
  });

  it('names it without a key too, instead of "no chat endpoint"', async () => {
    const run = await runCli(['resolve'], { SWITCHBOARD_CLIENT: 'scriptd' });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/^switchboard: SWITCHBOARD_CLIENT: unrecognised value "scriptd"/);
  });

  it('still takes a recognised value in any case and a blank one as unset', async () => {
    expect((await runCli(['resolve', '--json'], { SWITCHBOARD_CLIENT: ' Script ' })).code).toBe(0);
    const blank = await runCli(['resolve', '--json'], { SWITCHBOARD_CLIENT: ' ', PRIMARY_API_KEY: KEY });
    expect(JSON.parse(blank.stdout)).toMatchObject({ rule: 'primary' });
  });
});

describe('operation failures exit 1 and are not called unexpected', () => {
  it('says how many attempts a timed-out call made', async () => {
    const slow = await startEmulator({ key: KEY, faults: [{ path: '/chat/completions', delayMs: 3000 }] });
    try {
      const run = await runCli(['chat', 'hello', '--timeout', '0.3'], {
        PRIMARY_API_KEY: KEY,
        PRIMARY_BASE_URL: slow.url,
      });
      expect(run.code).toBe(1);
      const attempts = slow.requests.filter((request) => request.path === '/chat/completions').length;
      expect(attempts).toBeGreaterThan(1);
      expect(run.stderr).toMatch(
        new RegExp(`^switchboard: timeout: .*\\(${attempts} attempts made, each limited to 0\\.3 s`),
      );
      expect(run.stderr).not.toMatch(/unexpected error/);
    } finally {
      await slow.close();
    }
  });
});
