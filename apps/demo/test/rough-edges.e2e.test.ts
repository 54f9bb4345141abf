import { ChatAdapter, OpenAITransport } from '@switchboard/adapter';
import { CallJournal } from '@switchboard/telemetry';
import { sharedEmulator } from '@switchboard/test-support';
import { describe, expect, it } from 'vitest';
import { NEVER_STALE_TOML } from './never-stale.js';
import { runCli } from './run-cli.js';
import { tempDirectory } from './temp-directory.js';

const directory = tempDirectory('switchboard-edges-');
const KEY = 'rough-edges-key';
const emulator = sharedEmulator({ key: KEY }, { resetBeforeEach: false });
const live = () => ({ PRIMARY_API_KEY: KEY, PRIMARY_BASE_URL: emulator().url });

describe('--json failures print a JSON error object on stdout, keeping the exit code', () => {
  it('for bad input (exit 2)', async () => {
    const run = await runCli(['chat', 'x', '--json', '--temperature', '3'], live());
    expect(run.code).toBe(2);
    expect(JSON.parse(run.stdout)).toEqual({
      error: {
        message: "--temperature: expected a number from 0 to 2, got '3'",
        exitCode: 2,
        kind: null,
        status: null,
      },
    });
    expect(run.stderr).toBe("switchboard: --temperature: expected a number from 0 to 2, got '3'\n");
  });

  it('for no endpoint (exit 2)', async () => {
    const run = await runCli(['resolve', '--json']);
    expect(run.code).toBe(2);
    expect(JSON.parse(run.stdout).error).toMatchObject({
      exitCode: 2,
      message: expect.stringMatching(/^no chat endpoint/),
    });
  });

  it('for a failed call (exit 1), with its kind and status', async () => {
    const run = await runCli(['chat', 'hello', '--json'], { ...live(), PRIMARY_API_KEY: 'wrong-key' });
    expect(run.code).toBe(1);
    expect(JSON.parse(run.stdout).error).toMatchObject({ exitCode: 1, kind: 'auth', status: 401 });
    expect(run.stdout).not.toContain('wrong-key');
  });

  it('for a usage mistake commander reports', async () => {
    const run = await runCli(['chat', 'x', '--json', '--bogus'], live());
    expect(run.code).toBe(2);
    expect(JSON.parse(run.stdout).error).toMatchObject({ exitCode: 2, message: "unknown option '--bogus'" });
  });

  it('and nothing on stdout without --json', async () => {
    const run = await runCli(['chat', 'x', '--temperature', '3'], live());
    expect([run.code, run.stdout]).toEqual([2, '']);
  });
});

describe('--timeout', () => {
  it.each(['-1', '0', 'soon'])('%s names the flag, not the request field', async (value) => {
    const run = await runCli(['chat', 'x', '--timeout', value], live());
    expect(run.code).toBe(2);
    expect(run.stderr).toBe(
      `switchboard: --timeout '${value}': must be a positive finite number of seconds, got ${value === 'soon' ? 'NaN' : value}\n`,
    );
  });
});

describe('--help', () => {
  it('lists the environment variables and the exit codes', async () => {
    const run = await runCli(['--help']);
    expect(run.code).toBe(0);
    for (const name of [
      'PRIMARY_API_KEY',
      'PRIMARY_BASE_URL',
      'GATEWAY_API_KEY',
      'GATEWAY_BASE_URL',
      'SWITCHBOARD_CLIENT',
      'SWITCHBOARD_ALLOW_INSECURE_HTTP',
      'SWITCHBOARD_CASSETTE',
      'SWITCHBOARD_CASSETTE_PATH',
      'SWITCHBOARD_CASSETTE_RUN',
      'OTEL_SEMCONV_STABILITY_OPT_IN',
      'NO_COLOR',
    ]) {
      expect(run.stdout).toContain(name);
    }
    expect(run.stdout).toMatch(
      /Exit codes:\n\s+0 +done\n\s+1 +a call or operation failed.*\n\s+2 +bad input/,
    );
  });
});

describe('cost of a journal holding a failed call', () => {
  it('costs the other calls and exits 0: a failed call is not a line that cannot be costed', async () => {
    const path = `${directory.path}/run.jsonl`;
    const journal = new CallJournal(path, {
      endpoint: { provider: 'primary', baseUrl: emulator().url, thinking: false },
    });
    const call = (apiKey: string) =>
      new ChatAdapter(new OpenAITransport({ apiKey, baseUrl: emulator().url, maxAttempts: 1 }), {
        observers: [journal],
      }).complete({ model: 'primary-flash', messages: [{ role: 'user', content: 'hello' }] });
    await call(KEY);
    await expect(call('wrong-key')).rejects.toMatchObject({ kind: 'auth' });
    await journal.close();

    const run = await runCli(['cost', path, '--json']);
    expect(run.code).toBe(0);
    const document = JSON.parse(run.stdout);
    expect(document).toMatchObject({ calls: 1, problems: [], failedCalls: 1 });
    expect(document.usd).toBeGreaterThan(0);
    // The journal's calls are made today: pinned, their prices never count as stale.
    const config = await directory.file('never-stale.toml', NEVER_STALE_TOML);
    const text = await runCli(['cost', path, '--config', config]);
    expect(text.code).toBe(0);
    expect(text.stderr).toBe('switchboard: 1 failed call without usage: nothing to cost\n');
  });

  it('still exits 2 for a line that cannot be costed beside it', async () => {
    const path = await directory.file(
      'mixed.jsonl',
      '{"model": "primary-flash", "usage": null, "outcome": "timeout"}\n{"model": "primary-flash", "usage": {"prompt_tokens": "many"}}\n',
    );
    const run = await runCli(['cost', path, '--json']);
    expect(run.code).toBe(2);
    expect(JSON.parse(run.stdout)).toMatchObject({
      failedCalls: 1,
      problems: [expect.stringMatching(/:2: usage\.prompt_tokens/)],
    });
  });
});
