// A fleet (issue 44): four worker processes on two "hosts" (SWITCHBOARD_HOST) call the emulator, each
// journaling into its own file and all into one PostgresJournal at once. The report over the files and
// the report over PostgreSQL give the emulator's bill to the nano-dollar; a journal copied twice changes
// nothing; a line edited in one file fails the verification naming the file and the line.
// Uses the built dist (turbo builds before testing) and a real PostgreSQL (the budget's helper).
import { execFile } from 'node:child_process';
import { copyFile, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Emulator, startEmulator } from '@switchboard/emulator';
import { beforeAll, describe, expect, it } from 'vitest';
import { startPostgres, type TestPostgres } from '../../budget/test/support/start-postgres.js';
import { postgresJournalSource } from '../src/postgres-journal-source.js';
import { reportJournals } from '../src/report-journals.js';
import { verifyJournals } from '../src/verify-journals.js';

const WORKER = fileURLToPath(new URL('./fleet-worker.mjs', import.meta.url));
const KEY = 'sk-fleet';
const CALLS = 40;
const HOSTS = ['host-a', 'host-a', 'host-b', 'host-b'];

let postgres: TestPostgres;
let emulator: Emulator;
let folder = '';
let files: string[] = [];

function runWorker(
  file: string,
  host: string,
): Promise<{ lines: number; dropped: number; rows: number; rowsDropped: number }> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [WORKER, emulator.url, KEY, file, postgres.url, String(CALLS)],
      { env: { PATH: process.env.PATH ?? '', SWITCHBOARD_HOST: host }, timeout: 120_000 },
      (error, stdout, stderr) =>
        error ? reject(new Error(`${String(error)} ${stderr}`)) : resolve(JSON.parse(stdout)),
    );
  });
}

beforeAll(async () => {
  postgres = await startPostgres();
  emulator = await startEmulator({ key: KEY });
  folder = await mkdtemp(join(tmpdir(), 'fleet-'));
  files = HOSTS.map((_, index) => join(folder, `w${index + 1}.jsonl`));
  const results = await Promise.all(files.map((file, index) => runWorker(file, HOSTS[index] as string)));
  for (const result of results)
    expect(result).toEqual({ lines: CALLS, dropped: 0, rows: CALLS, rowsDropped: 0 });
  return async () => {
    await emulator.close();
    await postgres.stop();
  };
}, 240_000);

describe('a fleet: four processes on two hosts, one record', () => {
  it('reports the files and the PostgreSQL journal with the same totals, to the nano-dollar, as the emulator bills', async () => {
    const bill = emulator.bill();
    expect(bill.requests).toHaveLength(4 * CALLS);
    const fromFiles = await reportJournals(files);
    const fromPostgres = await reportJournals([postgresJournalSource(`${postgres.url}?schema=fleet`)]);
    for (const figures of [fromFiles, fromPostgres]) {
      expect(figures.totals.calls).toBe(4 * CALLS);
      expect(figures.totals.costNanoUsd).toBe(bill.totalNanoUsd);
      expect(Object.keys(figures.hosts).sort()).toEqual(['host-a', 'host-b']);
      for (const host of ['host-a', 'host-b']) {
        expect(figures.hosts[host]?.calls).toBe(2 * CALLS);
        expect(Object.keys(figures.hosts[host]?.processes ?? {})).toHaveLength(2);
      }
      expect(figures.repeats.count).toBe(0);
      expect(figures.conflicts.count).toBe(0);
    }
    // The same calls read in another order: the exact figures agree (a float sum such as durationMs may not, in its last bit).
    const exact = (figures: typeof fromFiles) =>
      Object.entries(figures.hosts).map(([host, tally]) => [
        host,
        tally.calls,
        tally.costNanoUsd,
        Object.entries(tally.processes).map(([pid, process]) => [pid, process.calls, process.costNanoUsd]),
      ]);
    expect(exact(fromPostgres)).toEqual(exact(fromFiles));
    expect(Object.keys(fromPostgres.byRole).sort()).toEqual(['judge', 'triage']);
    // Both together: each call once (the same callId, the same figures: a line written twice, counted once).
    const both = await reportJournals([...files, postgresJournalSource(`${postgres.url}?schema=fleet`)]);
    expect(both.totals.costNanoUsd).toBe(bill.totalNanoUsd);
  });

  it('counts a journal copied twice once', async () => {
    const copy = join(folder, 'w1-copy.jsonl');
    await copyFile(files[0] as string, copy);
    const figures = await reportJournals([...files, copy]);
    expect(figures.totals.costNanoUsd).toBe(emulator.bill().totalNanoUsd);
    expect(figures.totals.calls).toBe(4 * CALLS);
    expect(figures.repeats.count).toBe(CALLS);
    const verification = await verifyJournals([...files, copy].map((file) => ({ name: file, source: file })));
    expect(verification.conflicts.count).toBe(0);
    expect(verification.journals.map((journal) => journal.verification?.ok)).toEqual([
      true,
      true,
      true,
      true,
      true,
    ]);
  });

  it('fails the verification on a line edited in one file, naming the file and the line', async () => {
    const edited = join(folder, 'w3-edited.jsonl');
    const lines = (await readFile(files[2] as string, 'utf8')).trimEnd().split('\n');
    const line = JSON.parse(lines[6] as string) as { costNanoUsd: number; costUsd: number };
    lines[6] = JSON.stringify({
      ...line,
      costNanoUsd: line.costNanoUsd + 1,
      costUsd: (line.costNanoUsd + 1) / 1e9,
    });
    await writeFile(edited, `${lines.join('\n')}\n`);
    const journals = [files[0], files[1], edited, files[3]].map((file) => ({
      name: file as string,
      source: file as string,
    }));
    const verification = await verifyJournals(journals);
    expect(verification.ok).toBe(false);
    const failing = verification.journals.filter((journal) => journal.verification?.ok === false);
    expect(failing.map((journal) => journal.file)).toEqual([edited]);
    expect(failing[0]?.verification?.differing.map((differing) => differing.line)).toEqual([7]);
  });
});
