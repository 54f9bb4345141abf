import { sharedEmulator } from '@switchboard/test-support';
import { describe, expect, it } from 'vitest';
import { runCli, runCliInTerminal } from './run-cli.js';
import { tempDirectory } from './temp-directory.js';

const directory = tempDirectory('switchboard-stream-');
const KEY = 'stream-e2e-key';
const emulator = sharedEmulator({ key: KEY }, { resetBeforeEach: false });
const env = () => ({ PRIMARY_API_KEY: KEY, PRIMARY_BASE_URL: emulator().url });

describe('switchboard chat --stream against the emulator', () => {
  it('prints the same answer as a plain call, then the details with the cost', async () => {
    const plain = await runCli(['chat', 'Which package prices calls?'], env());
    const streamed = await runCli(['chat', 'Which package prices calls?', '--stream'], env());
    expect(streamed.code).toBe(0);
    expect(streamed.stdout).toBe(plain.stdout);
    expect(streamed.stderr).toMatch(/model primary-flash · provider primary · finish stop/);
    expect(streamed.stderr).toMatch(/cost \$0\.\d{9}/);
    const body = emulator().requests.at(-1)?.body as Record<string, unknown>;
    expect(body).toMatchObject({ stream: true, stream_options: { include_usage: true } });
  });

  it('with --json prints one JSON object per delta, then the final record', async () => {
    const run = await runCli(['chat', 'Which package prices calls?', '--stream', '--json'], env());
    expect(run.code).toBe(0);
    const lines = run.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    const record = lines.at(-1) as Record<string, unknown>;
    const deltas = lines.slice(0, -1);
    expect(deltas.length).toBeGreaterThan(3);
    expect(deltas.every((delta) => delta.type === 'content' && typeof delta.text === 'string')).toBe(true);
    expect(deltas.map((delta) => delta.text).join('')).toBe(record.content);
    expect(record).toMatchObject({ provider: 'primary', model: 'primary-flash', priceSource: 'table' });
    expect(record.costUsd).toBeGreaterThan(0);
    expect(record.calls).toMatchObject([{ streamed: true }]);
  });

  it('shows reasoning dimmed as it arrives on a terminal, then the answer', async () => {
    const config = await directory.file('thinking.toml', '[models]\nthinking = true\n');
    const run = await runCliInTerminal(['chat', 'Why?', '--stream', '--config', config], env());
    expect(run.code).toBe(0);
    // Each reasoning delta is dimmed on its own: the first word of the emulator's reasoning among them.
    expect(run.stdout).toContain('\u001b[2mThinking\u001b[22m');
    expect(run.stdout).toMatch(/model primary-flash · provider primary/);
  });

  it('leaves reasoning out of a piped answer unless --show-reasoning asks for it, then plain', async () => {
    const config = await directory.file('thinking-piped.toml', '[models]\nthinking = true\n');
    const quiet = await runCli(['chat', 'Why?', '--stream', '--config', config], env());
    const shown = await runCli(['chat', 'Why?', '--stream', '--show-reasoning', '--config', config], env());
    expect(quiet.code).toBe(0);
    expect(shown.code).toBe(0);
    expect(shown.stdout.length).toBeGreaterThan(quiet.stdout.length);
    expect(shown.stdout).not.toContain('\u001b[');
    expect(shown.stdout).not.toContain('reasoning:');
    expect(shown.stdout.startsWith('Thinking about: Why')).toBe(true);
    expect(quiet.stdout).not.toContain('Thinking about');
  });

  it('streams the scripted client offline', async () => {
    const run = await runCli(['chat', 'anything', '--stream', '--json'], { SWITCHBOARD_CLIENT: 'dump' });
    expect(run.code).toBe(0);
    const lines = run.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines.at(-1)).toMatchObject({ provider: 'scripted' });
    expect(
      lines
        .slice(0, -1)
        .map((delta) => delta.text)
        .join(''),
    ).toBe(lines.at(-1)?.content);
  });
});
