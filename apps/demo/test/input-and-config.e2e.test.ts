import { sharedEmulator } from '@switchboard/test-support';
import { describe, expect, it } from 'vitest';
import { runCli } from './run-cli.js';
import { tempDirectory } from './temp-directory.js';

const directory = tempDirectory('switchboard-input-');
const file = directory.file;

const KEY = 'input-key';

const emulator = sharedEmulator({ key: KEY }, { resetBeforeEach: false });

const live = () => ({ PRIMARY_API_KEY: KEY, PRIMARY_BASE_URL: emulator().url });
const lastUserMessage = () =>
  (emulator().requests.at(-1)?.body as { messages: Array<{ content: string }> } | undefined)?.messages.at(-1)
    ?.content;

describe('the prompt', () => {
  it("'chat -' reads it from stdin, without the final newline", async () => {
    const run = await runCli(['chat', '-'], live(), 'What does line 42 do?\nAnswer briefly.\n');
    expect(run.code).toBe(0);
    expect(lastUserMessage()).toBe('What does line 42 do?\nAnswer briefly.');
  });

  it.each([
    ['an empty argument', ['chat', ''], ''],
    ['a blank argument', ['chat', '  \t'], ''],
    ['nothing on stdin', ['chat', '-'], ' \n'],
  ])('refuses %s with exit 2 and sends nothing', async (_name, args, input) => {
    const before = emulator().requests.length;
    const run = await runCli(args, live(), input);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(
      /^switchboard: the prompt is empty( \(nothing on stdin\))?: nothing was sent\n$/,
    );
    expect(emulator().requests.length).toBe(before);
  });
});

describe('config typos', () => {
  it('warns about an unknown key inside [models], suggesting the nearest known key, and resolves', async () => {
    const config = await file('typo.toml', '[models]\nthinkng = true\n');
    const run = await runCli(['resolve', '--json', '--config', config], live());
    expect(run.code).toBe(0);
    expect(run.stderr.trim()).toBe(
      `switchboard: warning: ${config}: models.thinkng: unknown key, did you mean "thinking"?`,
    );
    expect(JSON.parse(run.stdout).endpoint.thinking).toBe(false);
  });

  it('warns about models keys written without a [models] header', async () => {
    const config = await file('headless.toml', 'hunter = "primary-v4-pro"\n');
    const run = await runCli(['resolve', '--config', config], live());
    expect(run.code).toBe(0);
    expect(run.stderr).toContain(
      `${config}: hunter: a models key outside [models]; did you mean models.hunter?`,
    );
  });

  it('--strict makes the warnings errors (exit 2)', async () => {
    const config = await file('strict.toml', '[models]\nthinkng = true\njuge = "primary-flash"\n');
    const run = await runCli(['chat', 'hello', '--strict', '--config', config], live());
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(
      /^switchboard: .*strict\.toml: models\.thinkng: unknown key, did you mean "thinking"\?; models\.juge: unknown key, did you mean "judge"\?\n/,
    );
  });

  it('leaves other sections alone', async () => {
    const config = await file('other.toml', '[scan]\ndepth = 2\n[models]\nthinking = true\n');
    const run = await runCli(['resolve', '--strict', '--config', config], live());
    expect(run.code).toBe(0);
    expect(run.stderr).toBe('');
  });

  it('gives the line and column of bad JSON', async () => {
    const config = await file('broken.json', '{\n  "models": {\n    "thinking": tru\n  }\n}\n');
    const run = await runCli(['resolve', '--config', config]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/^switchboard: .*broken\.json:3:17: not valid JSON: /);
  });

  it('says in words that a directory is not a config file', async () => {
    const run = await runCli(['resolve', '--config', directory.path]);
    expect(run.code).toBe(2);
    expect(run.stderr.trim()).toBe(
      `switchboard: cannot read the config file: is a directory, not a file: ${directory.path}`,
    );
  });
});

describe('resolve names a key variable that is unset', () => {
  it('warns when chat_api_key_env names an unset variable, and still resolves', async () => {
    const config = await file(
      'key-env.toml',
      `[models]\nchat_base_url = "${emulator().url}"\nchat_api_key_env = "MYKEY"\n`,
    );
    const run = await runCli(['resolve', '--config', config], { MYKEY: ' ' });
    expect(run.code).toBe(0);
    expect(run.stderr).toMatch(/^switchboard: warning: models\.chat_api_key_env names MYKEY, which is unset/);
    const set = await runCli(['resolve', '--config', config], { MYKEY: 'value' });
    expect(set.stderr).toBe('');
  });

  it('chat names the variable too, before the 401 it leads to', async () => {
    const config = await file(
      'key-env-chat.toml',
      `[models]\nchat_base_url = "${emulator().url}"\nchat_api_key_env = "MYKEY"\n`,
    );
    const run = await runCli(['chat', 'hello', '--config', config]);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^switchboard: warning: models\.chat_api_key_env names MYKEY, which is unset/);
    expect(run.stderr).toMatch(/^switchboard: auth: /m);
  });
});

describe('consistent figures', () => {
  it('one call, thousands separators on dollars, and nine decimals', async () => {
    const log = await file('big.jsonl', '{"completion_tokens": 1000000000}\n');
    const run = await runCli(['cost', log, '--model', 'primary-flash']);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/1,000,000,000\s+│\s+\$1,320\.000000000/);
    expect(run.stdout).toMatch(/total: \$1,320\.000000000 over 1 call\n/);
  });

  it('confidence is a percentage in chat as in the demo', async () => {
    const run = await runCli(['chat', 'hello', '--logprobs'], live());
    expect(run.stderr).toMatch(/mean logprob -\d+\.\d{4} \(confidence \d{1,3}\.\d%\)/);
  });
});
