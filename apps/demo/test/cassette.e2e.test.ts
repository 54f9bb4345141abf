import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ChatAdapter, type ChatTransport } from '@switchboard/adapter';
import { recordCassette } from '@switchboard/cassette';
import { ChatEndpoint } from '@switchboard/endpoint';
import { priceOf } from '@switchboard/prices';
import { closeTestEmulators, startTestEmulator } from '@switchboard/test-support';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from './run-cli.js';
import { tempDirectory } from './temp-directory.js';

const directory = tempDirectory('switchboard-cassette-');
const KEY = 'cli-check-key-0a1b2c3d4e5f';

/** A transport answering each question with a fixed reply and usage, so cassettes are made without a network. */
function stubTransport(answer: (question: string) => string): ChatTransport {
  return {
    completeChat: async () => ({}),
    completeChatRaw: async (request) => {
      const question = String(request.messages.at(-1)?.content);
      return {
        id: 'chatcmpl-stub',
        model: request.model,
        choices: [
          { index: 0, message: { role: 'assistant', content: answer(question) }, finish_reason: 'stop' },
        ],
        usage: { prompt_tokens: 1000, prompt_cache_hit_tokens: 0, completion_tokens: 500 },
      };
    },
  };
}

async function makeCassette(name: string, answer: (question: string) => string): Promise<string> {
  const path = join(directory.path, name);
  const endpoint = new ChatEndpoint({
    provider: 'primary',
    baseUrl: 'https://api.primary.example',
    thinking: false,
    prices: priceOf('primary-flash'),
  });
  const adapter = new ChatAdapter(
    recordCassette(path, stubTransport(answer), { apiKey: KEY, costModel: endpoint }),
    {
      endpoint,
    },
  );
  for (const question of ['first', 'second']) {
    await adapter.complete({ model: 'primary-flash', messages: [{ role: 'user', content: question }] });
  }
  return path;
}

describe('switchboard cassette', () => {
  it('show: a row per call with its tokens and recorded cost, and the total', async () => {
    const path = await makeCassette('show.jsonl', (question) => `answer to ${question}`);
    const run = await runCli(['cassette', 'show', path]);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(
      /│\s+1 │ primary-flash\s+│ plain │ ok\s+│\s+1 │\s+1,000 │\s+500 │ \$0\.001100000 │/,
    );
    expect(run.stdout).toMatch(/│ total │.*\$0\.002200000 │/);
    const json = JSON.parse((await runCli(['cassette', 'show', path, '--json'])).stdout) as {
      total: { calls: number; costUsd: number };
    };
    expect(json.total).toMatchObject({ calls: 2, costUsd: 0.0022 });
    // Today's prices (a config entry ten times dearer) next to the recorded ones.
    const config = await directory.file(
      'dearer.toml',
      '[prices."primary-flash"]\ncache_hit_per_m = 0.14\ninput_per_m = 4.4\noutput_per_m = 13.2\n',
    );
    const repriced = JSON.parse(
      (await runCli(['cassette', 'show', path, '--reprice', '--json', '--config', config])).stdout,
    ) as { total: { costUsd: number; todayUsd: number } };
    expect(repriced.total.costUsd).toBe(0.0022);
    expect(repriced.total.todayUsd).toBeCloseTo(0.022, 12);
  });

  it('diff: exit 0 for the same calls, exit 1 naming a changed reply', async () => {
    const before = await makeCassette('before.jsonl', (question) => `answer to ${question}`);
    const same = await makeCassette('same.jsonl', (question) => `answer to ${question}`);
    const after = await makeCassette('after.jsonl', (question) =>
      question === 'second' ? 'a new answer' : `answer to ${question}`,
    );
    expect((await runCli(['cassette', 'diff', before, same])).code).toBe(0);
    const changed = await runCli(['cassette', 'diff', before, after]);
    expect(changed.code).toBe(1);
    expect(changed.stdout).toContain('call 2 (A) / 2 (B), primary-flash: reply changed');
    expect(changed.stdout).toContain(
      'reply.body.choices[0].message.content: A "answer to second", B "a new answer"',
    );
  });

  it('check: exit 0 when clean, 1 for a key of the environment or a credential shape, 2 for a file that is not a cassette', async () => {
    const path = await makeCassette('check.jsonl', (question) => `answer to ${question}`);
    const clean = await runCli(['cassette', 'check', path], { PRIMARY_API_KEY: KEY });
    expect(clean).toMatchObject({ code: 0 });
    expect(clean.stdout).toMatch(/check\.jsonl: ok, 2 calls in run \S+ from 1 process\n$/);
    const leaked = join(directory.path, 'leaked.jsonl');
    writeFileSync(
      leaked,
      readFileSync(path, 'utf8').replace('answer to first', `answer ${Buffer.from(KEY).toString('base64')}`),
    );
    const found = await runCli(['cassette', 'check', leaked], { PRIMARY_API_KEY: KEY });
    expect(found.code).toBe(1);
    expect(found.stderr).toContain(
      'leaked.jsonl:2: holds the value of PRIMARY_API_KEY (base64) at $.reply.body.choices[#0].message.content',
    );
    expect(found.stderr).not.toContain(KEY);
    const shaped = join(directory.path, 'shaped.jsonl');
    writeFileSync(shaped, readFileSync(path, 'utf8').replace('answer to first', 'Bearer abcdefgh12345678'));
    expect((await runCli(['cassette', 'check', shaped])).stderr).toContain(
      'shaped.jsonl:2: holds a bearer token (as is)',
    );
    const broken = join(directory.path, 'broken.jsonl');
    writeFileSync(broken, `${readFileSync(path, 'utf8')}{"call": 3}\n`);
    const unreadable = await runCli(['cassette', 'check', broken]);
    expect(unreadable.code).toBe(2);
    expect(unreadable.stderr).toContain('broken.jsonl:4: "match" must be 16 hex digits');
  });
});

describe('switchboard cassette check re-prices each call (issue 40.17)', () => {
  /** A recorded two-call cassette whose second call was edited to claim $0 for 3M prompt tokens. */
  async function claimingNothing(name: string): Promise<string> {
    const path = await makeCassette(name, (question) => `answer to ${question}`);
    const lines = readFileSync(path, 'utf8').trimEnd().split('\n');
    const entry = JSON.parse(lines[2] as string);
    entry.reply.body.usage = { prompt_tokens: 3_000_000, prompt_cache_hit_tokens: 0, completion_tokens: 0 };
    entry.pricing.costUsd = 0;
    lines[2] = JSON.stringify(entry);
    writeFileSync(path, `${lines.join('\n')}\n`);
    return path;
  }

  it('names a call whose recorded cost its usage does not give at the prices in force: exit 1', async () => {
    const path = await claimingNothing('zero.jsonl');
    const run = await runCli(['cassette', 'check', path]);
    expect(run.code).toBe(1);
    // 3M prompt tokens of primary-flash at the shipped 0.44 USD per million.
    expect(run.stderr).toContain(
      'zero.jsonl: call 2: "pricing" records $0 for 3,000,000 prompt and 0 completion tokens of "primary-flash"',
    );
    expect(run.stderr).toContain(
      '(priced as "primary-flash", from the price book, checked 2026-11-22), but its usage costs $1.32 at those very prices: the line was edited by hand',
    );
    expect(run.stdout).not.toContain('ok,');
  });

  it('passes a recording whose costs its usage gives, and names each one the configuration prices otherwise', async () => {
    const path = await makeCassette('priced.jsonl', (question) => `answer to ${question}`);
    expect(await runCli(['cassette', 'check', path])).toMatchObject({ code: 0 });
    const dearer = await directory.file(
      'dearer-check.toml',
      '[prices."primary-flash"]\ncache_hit_per_m = 0.14\ninput_per_m = 4.4\noutput_per_m = 13.2\n',
    );
    const run = await runCli(['cassette', 'check', path, '--config', dearer]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      'priced.jsonl: call 1: "pricing" records $0.0011 for 1,000 prompt and 500 completion tokens of "primary-flash"',
    );
    expect(run.stderr).toContain(
      'but its usage costs $0.011 at the prices in force (priced as "primary-flash", from the price book): edited by hand, or recorded under other prices',
    );
    expect(run.stderr).toContain('priced.jsonl: call 2: ');
  });
});

describe('switchboard cassette check on a whole run', () => {
  /** The lines of a recorded two-call cassette: its header and its entries, parsed. */
  async function recordedLines(name: string) {
    const path = await makeCassette(name, (question) => `answer to ${question}`);
    const [header, ...entries] = readFileSync(path, 'utf8')
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    return { path, header: header as Record<string, unknown>, entries };
  }
  const write = (name: string, lines: readonly unknown[], tail = '\n') => {
    const path = join(directory.path, name);
    writeFileSync(
      path,
      `${lines.map((line) => (typeof line === 'string' ? line : JSON.stringify(line))).join('\n')}${tail}`,
    );
    return path;
  };

  it('says how many calls the run holds, per process', async () => {
    const { header, entries } = await recordedLines('run.jsonl');
    const other = [1, 2, 3].map((seq) => ({ ...entries[0], process: '4242-beef', seq }));
    const path = write('whole.jsonl', [header, entries[0], other[0], other[1], entries[1], other[2]]);
    const run = await runCli(['cassette', 'check', path]);
    expect(run.code).toBe(0);
    expect(run.stdout).toBe(`${path}: ok, 5 calls in run ${String(header.run)} from 2 processes (2, 3)\n`);
  });

  it('fails a cassette two runs wrote to, a cut one, and one whose process lost a line', async () => {
    const { header, entries } = await recordedLines('runs.jsonl');
    const interleaved = write('interleaved.jsonl', [
      header,
      entries[0],
      { ...entries[1], run: 'another-run' },
    ]);
    const mixed = await runCli(['cassette', 'check', interleaved]);
    expect(mixed.code).toBe(1);
    expect(mixed.stderr).toContain(
      `interleaved.jsonl:3: recorded by another run ("another-run") than the header's (${JSON.stringify(header.run)}): two record runs wrote to this file; re-record it`,
    );
    expect(mixed.stdout).toContain('interleaved.jsonl: 1 calls in run');

    const joined = write('joined.jsonl', [header, entries[0], header, entries[1]]);
    expect((await runCli(['cassette', 'check', joined])).stderr).toContain(
      'joined.jsonl:3: a second cassette header',
    );

    const cutPath = write('cut.jsonl', [header, entries[0], JSON.stringify(entries[1]).slice(0, 50)], '');
    const cut = await runCli(['cassette', 'check', cutPath]);
    expect(cut.code).toBe(1);
    expect(cut.stderr).toContain('cut.jsonl:3: cut: the file ends inside this line');

    const gap = write('gap.jsonl', [header, { ...entries[1], seq: 3 }]);
    const lost = await runCli(['cassette', 'check', gap]);
    expect(lost.code).toBe(1);
    expect(lost.stderr).toMatch(
      /gap\.jsonl:2: process \S+: call 3 follows call 0; 2 call\(s\) of it are missing/,
    );
  });

  it('fails a cassette holding the key split across stream events, or escaped in them', async () => {
    const { header, entries } = await recordedLines('stream.jsonl');
    const pieces = KEY.match(/.{1,3}/g) ?? [];
    const events = [
      ...pieces.map((piece) => ({
        ms: 1,
        data: JSON.stringify({ choices: [{ index: 0, delta: { content: piece } }] }),
      })),
      { ms: 1, data: `{"choices":[{"index":0,"delta":{"content":"\\u0063li-check-key-0a1b2c3d4e5f"}}]}` },
      { ms: 1, data: '[DONE]' },
    ];
    const streamed = {
      ...entries[0],
      streamed: true,
      reply: { status: 200, headers: {}, events, end: null },
    };
    const path = write('split.jsonl', [header, streamed]);
    const run = await runCli(['cassette', 'check', path], { PRIMARY_API_KEY: KEY });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      'split.jsonl:2: holds the value of PRIMARY_API_KEY (as is, split across 9 strings) at $.reply.events[].json.choices[#0].delta.content',
    );
    // The escaped copy: JSON-decoded, as a reader of the event reads it.
    expect(run.stderr).toContain(
      'split.jsonl:2: holds the value of PRIMARY_API_KEY (as is) at $.reply.events[].json.choices[#0].delta.content',
    );
    expect(run.stderr).not.toContain(KEY);
  });
});

describe('SWITCHBOARD_CASSETTE with any command', () => {
  afterEach(closeTestEmulators);

  /** The environment that replays the cassette at `path`, with no provider to reach. */
  const replayEnvironment = (path: string) => ({
    PRIMARY_API_KEY: 'replay',
    SWITCHBOARD_CASSETTE: 'replay',
    SWITCHBOARD_CASSETTE_PATH: path,
  });

  /** Runs `args` recording into `path` against an emulator, closes it, then runs them again replaying; both succeed. */
  async function recordThenReplay(args: string[], path: string) {
    const emulator = await startTestEmulator({ key: KEY });
    const recording = await runCli(args, {
      PRIMARY_API_KEY: KEY,
      PRIMARY_BASE_URL: emulator.url,
      SWITCHBOARD_CASSETTE: 'record',
      SWITCHBOARD_CASSETTE_PATH: path,
    });
    expect(recording.code).toBe(0);
    await emulator.close();
    const replaying = await runCli(args, replayEnvironment(path));
    expect(replaying.code).toBe(0);
    return { recording, replaying };
  }

  it('records `switchboard chat` against the provider, then replays it with the provider gone', async () => {
    const path = join(directory.path, 'chat.cassette.jsonl');
    const { recording, replaying } = await recordThenReplay(['chat', 'Is the build green?', '--json'], path);
    // A replay is a call of its own, made by another process: its own id, pid and time.
    const own = new Set(['at', 'durationMs', 'callId', 'pid']);
    const strip = (stdout: string) =>
      JSON.parse(stdout, (key, value) => (own.has(key) ? undefined : value)) as unknown;
    expect(strip(replaying.stdout)).toEqual(strip(recording.stdout));
    expect(readFileSync(path, 'utf8')).not.toContain(KEY);
    const missing = await runCli(['chat', 'Is the build red?'], replayEnvironment(path));
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('cassette_miss: no recording in the cassette');
    expect(missing.stderr).toContain(
      'messages[0].content: recorded "Is the build green?", now "Is the build red?"',
    );
  });

  it('records `switchboard chat --stream` and replays the same deltas and record', async () => {
    const path = join(directory.path, 'stream.cassette.jsonl');
    const args = ['chat', 'Tell me about the build', '--stream', '--json'];
    const { recording, replaying } = await recordThenReplay(args, path);
    const lines = (stdout: string) =>
      stdout
        .trim()
        .split('\n')
        .map((line) =>
          JSON.parse(line, (key, value) =>
            ['at', 'durationMs', 'firstDeltaMs', 'callId', 'pid'].includes(key) ? undefined : value,
          ),
        );
    expect(lines(recording.stdout).length).toBeGreaterThan(3);
    expect(lines(replaying.stdout)).toEqual(lines(recording.stdout));
  });
});
