import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { examineCassette, readCassette } from '@switchboard/cassette';
import { closeTestEmulators, startTestEmulator } from '@switchboard/test-support';
import { afterEach, describe, expect, it } from 'vitest';

// The issue this answers: `SWITCHBOARD_CASSETTE=record ... npm test` on a vitest suite of six files
// (parallel workers, each resolving the endpoint) passed with 36 calls and left a cassette of 6.
const SUITE = fileURLToPath(new URL('./fixtures/cassette-suite/', import.meta.url));
const VITEST = join(dirname(createRequire(import.meta.url).resolve('vitest/package.json')), 'vitest.mjs');
const KEY = 'suite-key-3c1f7a9e5b2d4c6f8a0e';
const FILES = ['alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot'];

afterEach(closeTestEmulators);

/**
 * Runs the suite with `vitest run` as a command of its own (its own process group, as a
 * shell starts each command), with only the given environment.
 */
function runSuite(env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  const child = spawn(process.execPath, [VITEST, 'run', '--root', SUITE, '--reporter', 'dot'], {
    cwd: SUITE,
    env: { PATH: process.env.PATH ?? '', NO_COLOR: '1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let output = '';
  child.stdout.on('data', (data: Buffer) => {
    output += data.toString();
  });
  child.stderr.on('data', (data: Buffer) => {
    output += data.toString();
  });
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, output })));
}

function outputs(directory: string): Record<string, unknown> {
  return Object.fromEntries(
    readdirSync(directory).map((file) => [file, JSON.parse(readFileSync(join(directory, file), 'utf8'))]),
  );
}

describe('a vitest suite recorded into one cassette and replayed', () => {
  it('records every call of six files on parallel workers, replays them all with the provider gone, and re-records in place', async () => {
    const work = mkdtempSync(join(tmpdir(), 'switchboard-cassette-suite-'));
    const cassette = join(work, 'suite.cassette.jsonl');
    const out = (name: string) => {
      const directory = join(work, name);
      mkdirSync(directory);
      return directory;
    };
    const emulator = await startTestEmulator({ key: KEY });
    const record = (directory: string) =>
      runSuite({
        SWITCHBOARD_CASSETTE: 'record',
        SWITCHBOARD_CASSETTE_PATH: cassette,
        PRIMARY_API_KEY: KEY,
        PRIMARY_BASE_URL: emulator.url,
        SUITE_OUT: directory,
      });
    const recordedOut = out('recorded');
    const recorded = await record(recordedOut);
    expect(recorded.code, recorded.output).toBe(0);

    const { problems, summary } = examineCassette(cassette, { keys: [KEY] });
    expect(problems).toEqual([]);
    expect(summary.calls).toBe(FILES.length * 6);
    // One process per file (forks, isolated), several at once.
    expect(summary.processes).toHaveLength(FILES.length);
    expect(summary.processes.every((process) => process.calls === 6)).toBe(true);
    expect(readFileSync(cassette, 'utf8')).not.toContain(KEY);
    await emulator.close();

    const replayedOut = out('replayed');
    const replayed = await runSuite({
      SWITCHBOARD_CASSETTE: 'replay',
      SWITCHBOARD_CASSETTE_PATH: cassette,
      PRIMARY_API_KEY: 'replay',
      PRIMARY_BASE_URL: 'http://127.0.0.1:9',
      SUITE_OUT: replayedOut,
    });
    expect(replayed.code, replayed.output).toBe(0);
    // Every file got what it got live: replies, exact costs, settlements.
    const live = outputs(recordedOut);
    const again = outputs(replayedOut);
    for (const file of Object.keys(live))
      expect(JSON.stringify(again[file]), file).toBe(JSON.stringify(live[file]));
    expect(Object.keys(again).sort()).toEqual(Object.keys(live).sort());

    // A new record run (a new command) replaces the cassette once, all its workers' calls kept.
    const before = readCassette(cassette).header.run;
    const second = await startTestEmulator({ key: KEY });
    const rerecorded = await runSuite({
      SWITCHBOARD_CASSETTE: 'record',
      SWITCHBOARD_CASSETTE_PATH: cassette,
      PRIMARY_API_KEY: KEY,
      PRIMARY_BASE_URL: second.url,
      SUITE_OUT: out('rerecorded'),
    });
    expect(rerecorded.code, rerecorded.output).toBe(0);
    const after = examineCassette(cassette);
    expect(after.problems).toEqual([]);
    expect(after.summary.calls).toBe(FILES.length * 6);
    expect(after.summary.run).not.toBe(before);
  }, 240_000);
});
