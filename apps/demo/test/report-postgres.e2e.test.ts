// Issue 44: `switchboard report postgres://…` reads a PostgresJournal's table as it reads a file, the
// password never printed. A real PostgreSQL started by the test (the budget's helper).
import { PostgresJournal } from '@switchboard/telemetry';
import { beforeAll, describe, expect, it } from 'vitest';
import { startPostgres, type TestPostgres } from '../../../packages/budget/test/support/start-postgres.js';
import { runCli } from './run-cli.js';
import { tempDirectory } from './temp-directory.js';

const directory = tempDirectory('switchboard-report-postgres-');
let server: TestPostgres;

// The server is stopped (and its directory removed) by the teardown beforeAll returns.
beforeAll(async () => {
  server = await startPostgres();
  return () => server.stop();
}, 120_000);

interface Figures {
  totals: { calls: number; costNanoUsd: number };
  hosts: Record<string, { calls: number }>;
  journals: { read: number; unreadable: { file: string; why: string }[] };
}

describe('switchboard report postgres://', () => {
  it('reports the table as a journal, with files beside it, and verifies it', async () => {
    const file = `${directory.path}/run.jsonl`;
    const demo = await runCli(['demo', '--journal', file], { SWITCHBOARD_HOST: 'alpha' });
    expect(demo.code, demo.stderr).toBe(0);
    const fromFile = JSON.parse((await runCli(['report', '--json', file])).stdout) as Figures;
    // The demo's lines, written into PostgreSQL by a PostgresJournal as the demo's process would have.
    const journal = new PostgresJournal({ url: server.url, schema: 'fleet', exitHooks: false });
    await journal.migrate();
    const { readFile } = await import('node:fs/promises');
    const lines = (await readFile(file, 'utf8'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    for (const line of lines) journal.afterCall({ ...line, host: 'beta', callId: `beta-${line.callId}` });
    await journal.close();
    expect(journal.lines).toBe(lines.length);
    const url = `${server.url}?schema=fleet`;
    const run = await runCli(['report', '--json', url]);
    expect(run.code, run.stderr).toBe(0);
    const figures = JSON.parse(run.stdout) as Figures;
    expect(figures.totals).toMatchObject({
      calls: fromFile.totals.calls,
      costNanoUsd: fromFile.totals.costNanoUsd,
    });
    expect(Object.keys(figures.hosts)).toEqual(['beta']);
    const both = JSON.parse((await runCli(['report', '--json', url, file])).stdout) as Figures;
    expect(both.totals.costNanoUsd).toBe(2 * fromFile.totals.costNanoUsd);
    expect(Object.keys(both.hosts).sort()).toEqual(['alpha', 'beta']);
    const verify = await runCli(['report', '--verify', url]);
    expect(verify.stdout).toContain(`postgres://127.0.0.1:${server.port}/postgres schema "fleet"`);
    expect(verify.stdout).not.toContain(server.password);
  });

  it('never prints the password: a wrong one is named without it, exit 2', async () => {
    const wrong = server.url.replace(server.password, 'wrong-secret-7f3a');
    for (const args of [
      ['report', wrong],
      ['report', '--json', wrong],
      ['report', '--verify', wrong],
      ['report', '--html', '-', wrong],
    ]) {
      const run = await runCli(args);
      expect(run.code, args.join(' ')).toBe(2);
      expect(`${run.stdout}${run.stderr}`).toMatch(/password authentication failed/);
      expect(`${run.stdout}${run.stderr}`).not.toContain('wrong-secret-7f3a');
    }
  });
});
