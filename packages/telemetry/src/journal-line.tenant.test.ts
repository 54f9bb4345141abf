import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ChatAdapter, OpenAITransport } from '@switchboard/adapter';
import { startEmulator } from '@switchboard/emulator';
import { describe, expect, it, onTestFinished } from 'vitest';
import { PRIMARY_JUDGE_CALL } from './__fixtures__/call-records.js';
import { CallJournal } from './call-journal.js';
import { checkJournalLine } from './check-journal-line.js';
import { JOURNAL_LIMITS } from './journal-limits.js';
import { journalEndpoint, journalLineText } from './journal-line.js';
import { readJournal } from './read-journal.js';
import type { TelemetryRecord } from './telemetry-record.js';

const ENDPOINT = journalEndpoint({ provider: 'primary', baseUrl: 'http://127.0.0.1:1', thinking: false });

function journalPath(): string {
  return join(mkdtempSync(join(tmpdir(), 'journal-tenant-')), 'run.jsonl');
}

async function linesOf(path: string): Promise<Record<string, unknown>[]> {
  const lines: Record<string, unknown>[] = [];
  for await (const line of readJournal(path)) lines.push(line as unknown as Record<string, unknown>);
  return lines;
}

describe('the tenant on a journal line', () => {
  it('journals each call’s tenant from the adapter (a view’s, a request’s own, none) and reads it back', async () => {
    const emulator = await startEmulator();
    onTestFinished(() => emulator.close());
    const path = journalPath();
    const journal = new CallJournal(path, { endpoint: ENDPOINT });
    const adapter = new ChatAdapter(new OpenAITransport({ apiKey: 'test-key', baseUrl: emulator.url }), {
      observers: [journal],
    });
    const request = { model: 'primary-flash', messages: [{ role: 'user' as const, content: 'hi' }] };
    await adapter.forTenant('acme').forRole('judge').complete(request);
    await adapter
      .forRole('judge')
      .forTenant('acme')
      .complete({ ...request, tenant: 'globex' });
    await adapter.complete(request);
    await journal.close();
    const lines = await linesOf(path);
    expect(lines.map((line) => [line.role, line.tenant])).toEqual([
      ['judge', 'acme'],
      ['judge', 'globex'],
      [null, null],
    ]);
  });

  it('writes tenant null for a record without one, and keeps it in the last-resort line', () => {
    const endpointJson = JSON.stringify(ENDPOINT);
    const none = JSON.parse(journalLineText(PRIMARY_JUDGE_CALL, endpointJson, undefined));
    expect(none).toHaveProperty('tenant', null);
    const unwritable = {
      ...PRIMARY_JUDGE_CALL,
      tenant: 'acme',
      responseId: 10n,
    } as unknown as TelemetryRecord;
    const core = JSON.parse(journalLineText(unwritable, endpointJson, undefined));
    expect(core.recordError).toMatch(/could not be written as JSON/);
    expect(core.tenant).toBe('acme');
  });

  it('cuts a tenant the reader would not take to the name bound, and says so', () => {
    const long = { ...PRIMARY_JUDGE_CALL, tenant: 't'.repeat(300) };
    const text = journalLineText(long, JSON.stringify(ENDPOINT), undefined);
    const checked = checkJournalLine(JSON.parse(text));
    if (typeof checked === 'string') throw new Error(`the reader skipped the line: ${checked}`);
    expect(checked.line.tenant).toBe('t'.repeat(JOURNAL_LIMITS.maxNameLength));
    expect(checked.line.clamped).toHaveProperty('tenant');
  });

  it('reads a line written before the field existed with tenant null, and refuses a tenant that is no name', async () => {
    const path = journalPath();
    const older = { ...PRIMARY_JUDGE_CALL, v: 2, role: 'judge', endpoint: ENDPOINT, outcome: 'ok' };
    const withoutSettlement = { ...older, settlement: undefined };
    const numbered = { ...older, tenant: 42 };
    writeFileSync(
      path,
      `${[older, withoutSettlement, numbered].map((line) => JSON.stringify(line)).join('\n')}\n`,
    );
    const issues: string[] = [];
    const lines: Record<string, unknown>[] = [];
    for await (const line of readJournal(path, { onIssue: (issue) => issues.push(issue.message) }))
      lines.push(line as unknown as Record<string, unknown>);
    expect(lines.map((line) => [line.tenant, line.settlement])).toEqual([
      [null, 'exact'],
      [null, 'exact'],
    ]);
    expect(issues).toEqual([
      expect.stringMatching(/:3: tenant: expected a string or null, got the number 42, skipped$/),
    ]);
    expect(checkJournalLine(older)).not.toHaveProperty('line', older);
  });
});
