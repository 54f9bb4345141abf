// The journal in PostgreSQL against a real server started by the test (the budget's helper):
// rows written in batches, read back as a journal, the password never in a message, a schema
// others may write refused, and a server SIGKILLed and restarted while four writers write.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPostgres, type TestPostgres } from '../../budget/test/support/start-postgres.js';
import { until } from '../../budget/test/support/until.js';
import { PRIMARY_JUDGE_CALL } from '../src/__fixtures__/call-records.js';
import { PostgresJournal } from '../src/postgres-journal.js';
import { postgresJournalSource } from '../src/postgres-journal-source.js';
import { reportJournals } from '../src/report-journals.js';
import type { TelemetryRecord } from '../src/telemetry-record.js';

let server: TestPostgres;

beforeAll(async () => {
  server = await startPostgres();
}, 120_000);

afterAll(async () => {
  await server?.stop();
});

/** A call of writer `host`, its `index`th, costing 1,000 + index nano-dollars. */
function call(host: string, index: number): TelemetryRecord {
  return {
    ...PRIMARY_JUDGE_CALL,
    callId: `${host}-${index}`,
    host,
    pid: 4242,
    at: new Date(Date.parse('2026-11-23T08:00:00Z') + index).toISOString(),
    costNanoUsd: 1000 + index,
    costUsd: (1000 + index) / 1e9,
  };
}

/** Rows of the journal by host, straight from the table. */
async function rowsByHost(schema: string): Promise<Map<string, number>> {
  const figures = await reportJournals([postgresJournalSource(server.url, { schema })]);
  return new Map(Object.entries(figures.hosts).map(([host, tally]) => [host, tally.calls]));
}

describe('PostgresJournal', () => {
  it('writes one row per call in batches, read back as a journal to the nano-dollar', async () => {
    const errors: unknown[] = [];
    const journal = new PostgresJournal({
      url: server.url,
      schema: 'basic',
      batchLines: 7,
      exitHooks: false,
      onError: (error) => errors.push(error),
    });
    await journal.migrate();
    await journal.migrate();
    let expected = 0;
    for (let index = 0; index < 50; index++) {
      journal.afterCall(call('alpha', index));
      expected += 1000 + index;
    }
    // The same call again (a retry of the record, or a second observer): one row.
    journal.afterCall(call('alpha', 3));
    await journal.flush();
    expect(errors).toEqual([]);
    expect(journal.lines).toBe(51);
    await journal.close();
    expect(journal.dropped).toBe(0);
    const figures = await reportJournals(
      [`${server.url}?schema=basic`].map((url) => postgresJournalSource(url)),
    );
    expect(figures.totals.calls).toBe(50);
    expect(figures.totals.costNanoUsd).toBe(expected);
    expect(figures.journals.unreadable).toEqual([]);
  });

  it('never prints the password: a wrong one is named without it', async () => {
    const wrong = server.url.replace(server.password, 'not-the-password-0123');
    const source = postgresJournalSource(wrong);
    expect(source.name).not.toContain('not-the-password');
    const figures = await reportJournals([source]);
    expect(figures.journals.unreadable).toHaveLength(1);
    const text = JSON.stringify(figures.journals);
    expect(text).toMatch(/password authentication failed/);
    expect(text).not.toContain('not-the-password-0123');
    expect(text).not.toContain(server.password);
    const warnings: string[] = [];
    const journal = new PostgresJournal({
      url: wrong,
      exitHooks: false,
      closeTimeoutMs: 1,
      warn: (m) => warnings.push(m),
    });
    const errors: unknown[] = [];
    const observed = new PostgresJournal({
      url: wrong,
      exitHooks: false,
      onError: (error) => errors.push(error),
      warn: () => undefined,
      closeTimeoutMs: 1,
    });
    observed.afterCall(call('beta', 1));
    await observed.flush();
    expect(String(errors[0])).not.toContain('not-the-password');
    await observed.close();
    journal.afterCall(call('beta', 2));
    await journal.close();
    expect(journal.dropped).toBe(1);
    expect(warnings.join('\n')).toMatch(/1 line was not written/);
    expect(warnings.join('\n')).not.toContain('not-the-password');
  });

  it('refuses a schema another role may write', async () => {
    const admin = new PostgresJournal({ url: server.url, schema: 'shared', exitHooks: false });
    await admin.migrate();
    await admin.close();
    const pg = (await import('pg')).default;
    const client = new pg.Client({ connectionString: server.url });
    await client.connect();
    await client.query(
      'DO $$ BEGIN CREATE ROLE other NOLOGIN; EXCEPTION WHEN duplicate_object THEN NULL; END $$',
    );
    await client.query('GRANT CREATE ON SCHEMA shared TO other');
    await client.end();
    const journal = new PostgresJournal({ url: server.url, schema: 'shared', exitHooks: false });
    await expect(journal.migrate()).rejects.toThrow(/role "other" may create objects in schema shared/);
    await journal.close();
  });

  it('keeps every acknowledged row, none twice, through a SIGKILL and restart while four writers write; each dropped line counted and warned', async () => {
    const schema = 'crash';
    const warnings: string[] = [];
    const writers = ['w1', 'w2', 'w3', 'w4'].map(
      (host, index) =>
        new PostgresJournal({
          url: server.url,
          schema,
          batchLines: 50,
          flushIntervalMs: 5,
          // One writer holds little: the outage fills its buffer, and it drops.
          maxBufferedLines: index === 0 ? 100 : 100_000,
          exitHooks: false,
          warn: (message) => warnings.push(`${host}: ${message}`),
        }),
    );
    await writers[0]?.migrate();
    const given = [0, 0, 0, 0];
    let writing = true;
    const write = async () => {
      while (writing) {
        for (const [index, writer] of writers.entries()) {
          writer.afterCall(call(`w${index + 1}`, given[index] as number));
          given[index] = (given[index] as number) + 1;
        }
        await new Promise((resolve) => setImmediate(resolve));
      }
    };
    const loop = write();
    await until(
      () => writers.every((writer) => writer.lines >= 200),
      'every writer has 200 rows acknowledged',
    );
    await server.kill();
    const acknowledgedBefore = writers.map((writer) => writer.lines);
    await until(() => (writers[0]?.dropped ?? 0) > 0, 'the small writer dropping while the server is down');
    await server.restart();
    await until(
      () => writers.every((writer, index) => writer.lines > (acknowledgedBefore[index] as number) + 200),
      'every writer writing again after the restart',
    );
    writing = false;
    await loop;
    for (const writer of writers) await writer.close();
    const rows = await rowsByHost(schema);
    for (const [index, writer] of writers.entries()) {
      const host = `w${index + 1}`;
      expect(writer.lines + writer.dropped).toBe(given[index]);
      // Every acknowledged line is a row, and no call is a row twice (callId is the key): rows = lines.
      expect(rows.get(host)).toBe(writer.lines);
    }
    expect(writers[0]?.dropped).toBeGreaterThan(0);
    expect(
      warnings.some((warning) => warning.startsWith('w1: ') && /lines were not written/.test(warning)),
    ).toBe(true);
  }, 180_000);
});
