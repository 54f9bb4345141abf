// Issue 44: `switchboard report postgres://…` reads a PostgresJournal's table as it reads a file, the
// password never printed. A real PostgreSQL started by the test (the budget's helper).
import { type CallObserver, ChatAdapter, FetchTransport } from '@switchboard/adapter';
import { createBudget, PostgresBudgetStore } from '@switchboard/budget';
import { startEmulator } from '@switchboard/emulator';
import { costOf, PriceBook, priceOf } from '@switchboard/prices';
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

  it('--verify holds the journal against the budget ledger in the same database, scope by scope', async () => {
    const emulator = await startEmulator({ key: 'sk-ledger' });
    try {
      const store = new PostgresBudgetStore({ url: server.url });
      const budget = createBudget({
        store,
        ownsStore: true,
        scope: { name: 'ledger-run', limitUsd: 5 },
        roles: { judge: { limitUsd: 1 } },
      });
      const journal = new PostgresJournal({ url: server.url, exitHooks: false });
      await journal.migrate();
      const book = new PriceBook();
      const adapter = new ChatAdapter(
        new FetchTransport({ apiKey: 'sk-ledger', baseUrl: emulator.url, maxAttempts: 1 }),
        {
          observers: [budget as CallObserver, journal],
          endpoint: {
            cost: (usage: unknown) => costOf(priceOf('primary-flash'), usage),
            priceCall: (call) => book.priceCall(call),
          },
          disableThinking: false,
        },
      );
      for (let call = 0; call < 6; call++)
        await (call % 2 === 0 ? adapter.forRole('judge') : adapter).complete({
          model: 'primary-flash',
          messages: [{ role: 'user', content: `Call ${call}: why did step ${call} fail?` }],
          maxTokens: 20,
        });
      expect(await budget.close({ timeoutMs: 30_000 })).toBe(true);
      await journal.close();
      const verify = await runCli(['report', '--verify', server.url]);
      expect(verify.stdout).toMatch(
        /budget scope "ledger-run": settled \$[\d.]+ in the ledger, \$[\d.]+ in the journal: equal/,
      );
      expect(verify.stdout).toMatch(/budget scope "ledger-run\/judge": .*: equal/);
      expect(verify.code, verify.stderr).toBe(0);
      // A worker whose calls the budget charged but no journal kept: the ledger names the spend the journal lacks.
      const unjournaled = createBudget({
        store: new PostgresBudgetStore({ url: server.url }),
        ownsStore: true,
        scope: { name: 'ledger-run', limitUsd: 5 },
        roles: { judge: { limitUsd: 1 } },
      });
      const silent = new ChatAdapter(
        new FetchTransport({ apiKey: 'sk-ledger', baseUrl: emulator.url, maxAttempts: 1 }),
        {
          observers: [unjournaled as CallObserver],
          endpoint: { cost: (usage: unknown) => costOf(priceOf('primary-flash'), usage) },
          disableThinking: false,
        },
      );
      await silent.forRole('judge').complete({
        model: 'primary-flash',
        messages: [{ role: 'user', content: 'Unjournaled?' }],
        maxTokens: 20,
      });
      expect(await unjournaled.close({ timeoutMs: 30_000 })).toBe(true);
      const tampered = await runCli(['report', '--verify', server.url]);
      expect(tampered.code).toBe(1);
      expect(tampered.stdout).toMatch(
        /budget scope "ledger-run\/judge": settled .* in the ledger, .* in the journal: they differ by \$/,
      );
      expect(tampered.stderr).toMatch(/budget ledgers? of PostgreSQL differs? from the journal/);
    } finally {
      await emulator.close();
    }
  });
});
