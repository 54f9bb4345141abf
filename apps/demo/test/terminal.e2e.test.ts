import { execFileSync } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { sharedEmulator } from '@switchboard/test-support';
import { describe, expect, it } from 'vitest';
import { NEVER_STALE_TOML } from './never-stale.js';
import { runCli, runCliInTerminal } from './run-cli.js';
import { tempDirectory } from './temp-directory.js';

const directory = tempDirectory('switchboard-terminal-');

const KEY = 'terminal-key';
// Clear the screen, write "Hello" to the clipboard (OSC 52), and a one-byte CSI (C1).
const HOSTILE = 'before\u001b[2Jafter\u001b]52;c;SGVsbG8=\u0007end\u009b31m';
// biome-ignore lint/suspicious/noControlCharactersInRegex: these are the characters that must not get through.
const RAW_CONTROL = /[\u0007\u001b\u009b]/;

function reply(content: string): string {
  return JSON.stringify({
    id: 'chatcmpl-hostile',
    object: 'chat.completion',
    created: 0,
    model: 'primary-flash',
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content, reasoning_content: content },
        finish_reason: 'stop',
        logprobs: null,
      },
    ],
    usage: { prompt_tokens: 5, completion_tokens: 5, total_tokens: 10, prompt_cache_miss_tokens: 5 },
  });
}

const hostile = sharedEmulator(
  {
    key: KEY,
    faults: [
      {
        path: '/chat/completions',
        model: 'primary-flash',
        body: reply(HOSTILE),
        contentType: 'application/json',
      },
      { path: '/chat/completions', model: 'primary-v4-pro', status: 400, message: HOSTILE },
      {
        path: '/models',
        body: JSON.stringify({ object: 'list', data: [{ id: `primary-flash${HOSTILE}`, object: 'model' }] }),
        contentType: 'application/json',
      },
    ],
  },
  { resetBeforeEach: false },
);
const slow = sharedEmulator(
  { key: KEY, faults: [{ path: '/chat/completions', delayMs: 700 }] },
  { resetBeforeEach: false },
);

describe('text from the server never reaches the terminal raw', () => {
  const env = () => ({ PRIMARY_API_KEY: KEY, PRIMARY_BASE_URL: hostile().url });

  it.each([
    ['content and reasoning', ['chat', 'hello', '--show-reasoning']],
    ['an error message', ['chat', 'hello', '--model', 'primary-v4-pro']],
    ['model ids', ['models']],
  ])('%s', async (_name, args) => {
    const run = await runCli(args, env());
    const output = `${run.stdout}${run.stderr}`;
    expect(output).not.toMatch(RAW_CONTROL);
    expect(output).toContain('\\u001b[2J');
    expect(output).toContain('\\u001b]52;c;SGVsbG8=\\u0007');
  });

  it('--json output is valid JSON that holds the text exactly, with no raw control character', async () => {
    const run = await runCli(['chat', 'hello', '--json'], env());
    expect(run.code).toBe(0);
    expect(run.stdout).not.toMatch(RAW_CONTROL);
    expect(JSON.parse(run.stdout)).toMatchObject({ content: HOSTILE, reasoning: HOSTILE });
  });
});

it('a malformed usage-log line is quoted without its control characters', async () => {
  const log = join(directory.path, 'hostile.jsonl');
  await writeFile(log, `{"completion_tokens": 1}\n${HOSTILE}\n`);
  const run = await runCli(['cost', log, '--model', 'primary-flash']);
  expect(run.code).toBe(2);
  expect(run.stderr).toMatch(/hostile\.jsonl:2: not valid JSON/);
  expect(`${run.stdout}${run.stderr}`).not.toMatch(RAW_CONTROL);
});

describe('the spinner', () => {
  const env = () => ({ PRIMARY_API_KEY: KEY, PRIMARY_BASE_URL: slow().url, NO_COLOR: '1' });

  it('shows the elapsed time and the attempt number on a terminal', async () => {
    const run = await runCliInTerminal(['chat', 'hello'], env());
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] primary-flash via primary · \d+\.\d s · attempt 1/);
    // It clears its line before the answer and the details are printed.
    expect(run.stdout).toContain('\r\u001b[2K');
    expect(run.stdout).toMatch(/model primary-flash · provider primary/);
  });

  it('writes nothing when stderr is not a terminal', async () => {
    const config = await directory.file('never-stale.toml', NEVER_STALE_TOML);
    const run = await runCli(['chat', 'hello', '--config', config], env());
    expect(run.code).toBe(0);
    expect(run.stderr).not.toMatch(/[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏\r]|attempt/);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
  });
});

describe('colour is decided per stream', () => {
  const log = async () => {
    const file = join(directory.path, 'usage.jsonl');
    await writeFile(file, '{"completion_tokens": 5}\n');
    return file;
  };

  it('a terminal stdout gets colour while stderr redirected to a file gets none', async () => {
    const errors = join(directory.path, 'stderr.txt');
    const run = await runCliInTerminal(['demo'], {}, `2>'${errors}'`);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('\u001b[1mEndpoint record');
    const stderr = await readFile(errors, 'utf8');
    expect(stderr).toMatch(/\[1\/6\] detector/);
    expect(stderr).not.toContain('\u001b');
  });

  it.each([
    ['FORCE_COLOR=1 turns it on for pipes', { FORCE_COLOR: '1', NO_COLOR: '' }, true],
    ['FORCE_COLOR=0 keeps it off', { FORCE_COLOR: '0', NO_COLOR: '' }, false],
    ['NO_COLOR wins over FORCE_COLOR', { FORCE_COLOR: '1', NO_COLOR: '1' }, false],
    ['pipes get none by default', { NO_COLOR: '' }, false],
  ])('%s', async (_name, env, colored) => {
    const run = await runCli(['cost', await log(), '--model', 'primary-flash'], env);
    expect(run.stdout.includes('\u001b[')).toBe(colored);
  });
});

it('has util-linux script for the pseudo-terminal tests', () => {
  expect(execFileSync('script', ['--version'], { encoding: 'utf8' })).toMatch(/util-linux/);
});
