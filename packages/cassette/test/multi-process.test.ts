import { spawn } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  CassetteFormatError,
  examineCassette,
  readCassette,
  recordCassette,
  replayCassette,
} from '../src/index.js';
import { cassettePath } from './support/cassette-path.js';
import { plainTransport, replyWith } from './support/stub-transports.js';

// The children use the built dist (turbo builds before testing).
const CHILD = fileURLToPath(new URL('./fixtures/cassette-child.mjs', import.meta.url));

function runChild(
  mode: 'record' | 'replay',
  path: string,
  name: string,
  calls: number,
  env: Record<string, string> = {},
): Promise<Record<string, unknown>> {
  const child = spawn(process.execPath, [CHILD, mode, path, name, String(calls)], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, SWITCHBOARD_CASSETTE_RUN: '', ...env },
  });
  let output = '';
  let errors = '';
  child.stdout.on('data', (data: Buffer) => {
    output += data.toString();
  });
  child.stderr.on('data', (data: Buffer) => {
    errors += data.toString();
  });
  return new Promise((resolve, reject) =>
    child.on('exit', (code) =>
      code === 0
        ? resolve(JSON.parse(output) as Record<string, unknown>)
        : reject(new Error(`${mode} ${name} exited ${code}: ${errors}`)),
    ),
  );
}

const NAMES = ['alpha', 'bravo', 'charlie', 'delta'];
const CALLS = 12;

/** Each process's calls: its unique ones, its pings, one stream. */
const PER_PROCESS = 2 * CALLS + 1;

describe('a whole test run recorded into one cassette', () => {
  it('keeps every call of several processes recording at once, each with two resolutions, the header once', async () => {
    const path = cassettePath('run');
    // No SWITCHBOARD_CASSETTE_RUN: the processes one command started (here, this test's) are one run.
    const results = await Promise.all(NAMES.map((name) => runChild('record', path, name, CALLS)));
    expect(results).toEqual(NAMES.map(() => ({ pings: CALLS })));

    const text = readFileSync(path, 'utf8');
    expect(text.split('\n').filter((line) => line.startsWith('{"cassette":'))).toHaveLength(1);
    const cassette = readCassette(path);
    expect(cassette.entries).toHaveLength(NAMES.length * PER_PROCESS);
    const { problems, summary } = examineCassette(path);
    expect(problems).toEqual([]);
    expect(summary.calls).toBe(NAMES.length * PER_PROCESS);
    expect(summary.run).toBe(cassette.header.run);
    expect(summary.processes.map((process) => process.calls)).toEqual(NAMES.map(() => PER_PROCESS));
    // Recorded at once: the processes' lines interleave in the file.
    const order = cassette.entries.map((entry) => entry.process);
    expect(order.slice(0, PER_PROCESS).every((process) => process === order[0])).toBe(false);

    // Replayed by as many processes at once, each in its own shuffled order: every request found,
    // identical requests (the pings) in the order this process's recorder made them.
    const replays = await Promise.all(NAMES.map((name) => runChild('replay', path, name, CALLS)));
    replays.forEach((replayed, index) => {
      const name = NAMES[index] as string;
      expect(replayed.answers).toEqual(
        Object.fromEntries(
          Array.from({ length: CALLS }, (_, call) => [`${name} q${call}`, `answer to ${name} q${call}`]),
        ),
      );
      expect(replayed.pongs).toEqual(Array.from({ length: CALLS }, (_, call) => `pong ${name} #${call + 1}`));
      expect(replayed.streamed).toBe(`streamed ${name} stream`);
    });
  }, 120_000);

  it('replaces the cassette of an earlier run exactly once when a new run starts in several processes', async () => {
    const path = cassettePath('rerun');
    await Promise.all(
      NAMES.slice(0, 2).map((name) =>
        runChild('record', path, name, 4, { SWITCHBOARD_CASSETTE_RUN: 'first' }),
      ),
    );
    expect(readCassette(path).header.run).toBe('first');
    await Promise.all(
      NAMES.slice(1).map((name) =>
        runChild('record', path, `${name}2`, 4, { SWITCHBOARD_CASSETTE_RUN: 'second' }),
      ),
    );
    const cassette = readCassette(path);
    expect(cassette.header.run).toBe('second');
    expect(cassette.entries).toHaveLength(3 * (2 * 4 + 1));
    expect(cassette.entries.every((entry) => entry.run === 'second')).toBe(true);
    expect(examineCassette(path).summary.processes).toHaveLength(3);
    // A process of the same run started later appends.
    await runChild('record', path, 'late', 2, { SWITCHBOARD_CASSETTE_RUN: 'second' });
    expect(readCassette(path).entries).toHaveLength(3 * 9 + 5);
  }, 120_000);
});

describe('several resolutions in one process', () => {
  it('append to one cassette, in one run, numbered per process', async () => {
    const path = cassettePath('resolutions');
    const first = recordCassette(path, plainTransport(replyWith('one')), { run: 'r', env: {} });
    const second = recordCassette(path, plainTransport(replyWith('two')), { run: 'r', env: {} });
    const request = (content: string) => ({
      model: 'primary-flash',
      messages: [{ role: 'user' as const, content }],
      tools: undefined,
      timeoutSeconds: 60,
      extraBody: {},
    });
    await first.completeChatRaw(request('a'));
    await second.completeChatRaw(request('b'));
    await first.completeChatRaw(request('a'));
    const cassette = readCassette(path);
    expect(cassette.entries.map((entry) => entry.seq)).toEqual([1, 2, 3]);
    expect(new Set(cassette.entries.map((entry) => entry.process)).size).toBe(1);

    // Replayed through two resolutions sharing progress: identical requests in recorded order.
    const replays = [
      replayCassette(path, { progress: 'process' }),
      replayCassette(path, { progress: 'process' }),
    ];
    const content = async (index: number, text: string) =>
      (
        (await (replays[index] as ReturnType<typeof replayCassette>).completeChatRaw(request(text))) as {
          choices: [{ message: { content: string } }];
        }
      ).choices[0].message.content;
    expect(await content(1, 'a')).toBe('one');
    expect(await content(0, 'b')).toBe('two');
    expect(await content(0, 'a')).toBe('one');
    // Own progress (the default) starts from the first call.
    expect(
      (
        (await replayCassette(path).completeChatRaw(request('b'))) as {
          choices: [{ message: { content: string } }];
        }
      ).choices[0].message.content,
    ).toBe('two');

    // A new run replaces the file once; a recorder of the old run then fails every call (naming the new
    // run) instead of writing into the new run's file or replacing it back, and says in that file that
    // its 3 calls are not there: the check fails, replay refuses the file.
    const next = recordCassette(path, plainTransport(replyWith('three')), { run: 'next', env: {} });
    await next.completeChatRaw(request('c'));
    for (const content of ['d', 'e']) {
      await expect(first.completeChatRaw(request(content))).rejects.toThrow(/another record run \("next"\)/);
    }
    await expect(second.completeChatRaw(request('f'))).rejects.toThrow(CassetteFormatError);
    const { problems, summary } = examineCassette(path);
    expect(summary.run).toBe('next');
    expect(summary.calls).toBe(1);
    expect(problems.map((problem) => problem.message)).toEqual([
      expect.stringMatching(
        /^3 call\(s\) that process "[\w.-]+" of run "r" recorded to this cassette are not in it: run "next" replaced the file/,
      ),
    ]);
    expect(() => readCassette(path)).toThrow(/are not in it/);

    // A file removed between tests is recorded afresh by the same run.
    rmSync(path);
    await next.completeChatRaw(request('e'));
    expect(readCassette(path).entries).toHaveLength(1);
  });

  it('appends after a line a crashed writer left cut, so the check names the cut line and nothing else', async () => {
    const path = cassettePath('torn');
    const recorder = recordCassette(path, plainTransport(replyWith('x')), { run: 'torn', env: {} });
    const request = {
      model: 'primary-flash',
      messages: [{ role: 'user' as const, content: 'q' }],
      tools: undefined,
      timeoutSeconds: 60,
      extraBody: {},
    };
    await recorder.completeChatRaw(request);
    const whole = readFileSync(path, 'utf8');
    const lines = whole.trimEnd().split('\n');
    // Another process of the run died in the middle of its line.
    writeFileSync(path, `${whole}${(lines[1] as string).slice(0, 30)}`);
    const late = recordCassette(path, plainTransport(replyWith('y')), { run: 'torn', env: {} });
    await late.completeChatRaw({ ...request, messages: [{ role: 'user', content: 'r' }] });
    const { problems } = examineCassette(path);
    expect(problems).toHaveLength(1);
    expect(problems[0]?.line).toBe(3);
  });
});
