import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { examineCassette, readCassette } from '../src/index.js';
import { readCassetteForCheck } from '../src/read-cassette.js';
import { cassettePath } from './support/cassette-path.js';

// The children use the built dist (turbo builds before testing).
const CHILD = fileURLToPath(new URL('./fixtures/driven-recorder.mjs', import.meta.url));

type Answer = { ok: true; call: number } | { ok: false; call: number; message: string } | { done: true };

/** A real process recording one run to one cassette, driven a line at a time (see the fixture). */
class Recorder {
  readonly answers: Answer[] = [];
  readonly #child: ChildProcessWithoutNullStreams;
  readonly #exited: Promise<number | null>;
  #wake: (() => void) | null = null;
  #errors = '';

  constructor(path: string, run: string) {
    this.#child = spawn(process.execPath, [CHILD, path, run], { env: { ...process.env } });
    this.#child.stderr.on('data', (data: Buffer) => {
      this.#errors += data.toString();
    });
    createInterface({ input: this.#child.stdout }).on('line', (line) => {
      this.answers.push(JSON.parse(line) as Answer);
      this.#wake?.();
    });
    this.#exited = new Promise((resolve) => this.#child.on('exit', (code) => resolve(code)));
  }

  /** Waits until an answer arrives that satisfies `done` (checked on every answer so far). */
  async until(done: (answers: readonly Answer[]) => boolean): Promise<void> {
    while (!done(this.answers)) {
      const arrived = new Promise<void>((resolve) => {
        this.#wake = resolve;
      });
      const exited = this.#exited.then((code) => {
        throw new Error(`the recorder exited (${code}) before answering: ${this.#errors}`);
      });
      await Promise.race([arrived, exited]);
    }
  }

  /** Makes one call; its answer. */
  async call(): Promise<Answer> {
    const before = this.answers.length;
    this.#child.stdin.write('call\n');
    await this.until((answers) => answers.length > before);
    return this.answers[before] as Answer;
  }

  /** Starts calling one call after another (each answered as it ends), until `stop()`. */
  loop(): void {
    this.#child.stdin.write('loop\n');
  }

  /** Ends the loop; resolves once its last call answered. */
  async stop(): Promise<void> {
    this.#child.stdin.write('stop\n');
    await this.until((answers) => answers.some((answer) => 'done' in answer));
  }

  async exit(): Promise<number | null> {
    this.#child.stdin.end('exit\n');
    return this.#exited;
  }

  get succeeded(): number {
    return this.answers.filter((answer) => 'ok' in answer && answer.ok).length;
  }

  get failures(): string[] {
    return this.answers.flatMap((answer) => ('ok' in answer && !answer.ok ? [answer.message] : []));
  }
}

const ok = { ok: true };

describe('two record runs on one cassette (issue 40 §7)', () => {
  it('a run whose file another run took over fails every later call naming it, in that process and new ones, and never takes it back', async () => {
    const path = cassettePath('takeover');
    const first = new Recorder(path, 'run-A');
    for (let call = 0; call < 3; call += 1) expect(await first.call()).toMatchObject(ok);
    const second = new Recorder(path, 'run-B');
    expect(await second.call()).toMatchObject(ok);
    expect(readCassette(path).header).toMatchObject({ run: 'run-B', replaced: ['run-A'] });

    for (let call = 0; call < 2; call += 1) {
      const answer = await first.call();
      expect(answer).toMatchObject({ ok: false });
      expect((answer as { message: string }).message).toMatch(
        /another record run \("run-B"\) took this cassette over while this run \("run-A"\) was recording to it/,
      );
    }
    // A process of run A started after the takeover does not take the file back either.
    const late = new Recorder(path, 'run-A');
    expect(await late.call()).toMatchObject({
      ok: false,
      message: expect.stringMatching(/\("run-B"\) took this cassette over/),
    });
    for (let call = 0; call < 2; call += 1) expect(await second.call()).toMatchObject(ok);
    expect(await Promise.all([first.exit(), second.exit(), late.exit()])).toEqual([0, 0, 0]);

    // Every call of run B is there; run A's 3 are not, and the file says so: the check fails.
    const { problems, summary } = examineCassette(path);
    expect(summary).toMatchObject({ run: 'run-B', calls: 3 });
    expect(problems).toEqual([
      {
        line: 3,
        message: expect.stringMatching(
          /^3 call\(s\) that process "[\w.-]+" of run "run-A" recorded to this cassette are not in it: run "run-B" replaced the file while that run was still recording/,
        ),
      },
    ]);
  }, 120_000);

  it('run B started while run A calls as fast as it can: the file changes hands once, B loses nothing, the check names what A lost', async () => {
    const path = cassettePath('ping-pong');
    const a = new Recorder(path, 'run-A');
    const b = new Recorder(path, 'run-B');
    a.loop();
    await a.until(() => a.succeeded >= 20);
    b.loop();
    // Both keep calling until B has made 200 calls and A has failed 20 since B took the file.
    await Promise.all([b.until(() => b.succeeded >= 200), a.until(() => a.failures.length >= 20)]);
    await Promise.all([a.stop(), b.stop()]);
    expect(await Promise.all([a.exit(), b.exit()])).toEqual([0, 0]);

    // B: every call succeeded and every one is in the file, which changed hands once (A → B).
    expect(b.failures).toEqual([]);
    const cassette = readCassetteForCheck(path, []);
    expect(cassette.header).toMatchObject({ run: 'run-B', replaced: ['run-A'] });
    expect(cassette.entries.filter((entry) => entry.run === 'run-B')).toHaveLength(b.succeeded);
    // A: successes, then only failures naming B (never one more success: the file was never taken back).
    const firstFailure = a.answers.findIndex((answer) => 'ok' in answer && !answer.ok);
    expect(firstFailure).toBeGreaterThanOrEqual(20);
    expect(a.answers.slice(firstFailure).filter((answer) => 'ok' in answer && answer.ok)).toEqual([]);
    expect(a.failures.length).toBeGreaterThan(0);
    expect(
      a.failures.filter((message) => !/another record run \("run-B"\) took this cassette over/.test(message)),
    ).toEqual([]);
    const { problems } = examineCassette(path);
    expect(problems.map((problem) => problem.message)).toEqual([
      expect.stringMatching(
        new RegExp(`^${a.succeeded} call\\(s\\) that process "[\\w.-]+" of run "run-A" recorded`),
      ),
    ]);
  }, 120_000);
});
