import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type CallRecord, ChatAdapter, type ChatTransport } from '@switchboard/adapter';
import { describe, expect, it } from 'vitest';
import { PRIMARY_JUDGE_CALL } from './__fixtures__/call-records.js';
import { CallJournal } from './call-journal.js';
import type { TelemetryRecord } from './telemetry-record.js';

// The adapter's mark of a record that is frozen plain data all the way down.
const UNCHANGEABLE = Symbol.for('@switchboard/adapter.unchangeable-record');

function journalPath(): string {
  return join(mkdtempSync(join(tmpdir(), 'journal-deferred-')), 'run.jsonl');
}

function textOf(path: string): string {
  return readFileSync(path, 'utf8');
}

function linesOf(path: string): Record<string, unknown>[] {
  return textOf(path)
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line));
}

/** A frozen copy of `record`, marked as the adapter marks its own. */
function marked(record: object): TelemetryRecord {
  const copy = { ...record };
  Object.defineProperty(copy, UNCHANGEABLE, { value: true });
  return Object.freeze(copy) as TelemetryRecord;
}

/**
 * A record whose `durationMs` counts how often it was read: it shows when the line was made.
 * (A record the adapter marks never has a getter; this one breaks that rule to be seen.)
 */
function counted(mark: boolean): { record: TelemetryRecord; reads: () => number } {
  let reads = 0;
  const record = { ...PRIMARY_JUDGE_CALL } as Record<string, unknown>;
  delete record.durationMs;
  Object.defineProperty(record, 'durationMs', {
    enumerable: true,
    get: () => {
      reads += 1;
      return 1234;
    },
  });
  if (mark) Object.defineProperty(record, UNCHANGEABLE, { value: true });
  return { record: Object.freeze(record) as unknown as TelemetryRecord, reads: () => reads };
}

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('CallJournal: the line of an unchangeable record is made off the call path', () => {
  it('makes a marked record’s line after the call returns, and any other record’s at once', async () => {
    const journal = new CallJournal(journalPath());
    const later = counted(true);
    const atOnce = counted(false);
    journal.afterCall(later.record);
    expect(later.reads()).toBe(0);
    expect(journal.pending).toBe(1);
    journal.afterCall(atOnce.record);
    // A line made at once comes after the lines numbered before it: those were made first.
    expect(later.reads()).toBeGreaterThan(0);
    expect(atOnce.reads()).toBeGreaterThan(0);
    journal.afterCall(counted(true).record);
    const third = counted(true);
    journal.afterCall(third.record);
    expect(third.reads()).toBe(0);
    await nextTurn();
    expect(third.reads()).toBeGreaterThan(0);
    await journal.close();
    expect(linesOf(journal.path).map((line) => line.seq)).toEqual([1, 2, 3, 4]);
  });

  it('writes the same bytes for a marked record as for the same record unmarked', async () => {
    const plain = new CallJournal(journalPath());
    const deferred = new CallJournal(journalPath());
    for (let call = 0; call < 5; call += 1) {
      const record = { ...PRIMARY_JUDGE_CALL, durationMs: call + 0.125 };
      plain.afterCall(Object.freeze(record));
      deferred.afterCall(marked(record));
    }
    await plain.close();
    await deferred.close();
    const written = linesOf(deferred.path);
    expect(written.map((line) => line.durationMs)).toEqual([0.125, 1.125, 2.125, 3.125, 4.125]);
    const pidAndHost = (text: string) => text.replace(/"host":"[^"]*","pid":\d+,/g, '');
    expect(pidAndHost(textOf(deferred.path))).toBe(pidAndHost(textOf(plain.path)));
  });

  it('writes lines not yet made on flush and close, in order', async () => {
    const path = journalPath();
    const journal = new CallJournal(path);
    journal.afterCall(marked({ ...PRIMARY_JUDGE_CALL, durationMs: 1 }));
    await journal.flush();
    expect(journal.lines).toBe(1);
    journal.afterCall(marked({ ...PRIMARY_JUDGE_CALL, durationMs: 2 }));
    journal.afterCall({ ...PRIMARY_JUDGE_CALL, durationMs: 3 });
    journal.afterCall(marked({ ...PRIMARY_JUDGE_CALL, durationMs: 4 }));
    expect(await journal.close()).toBe(0);
    expect(linesOf(path).map((line) => [line.seq, line.durationMs])).toEqual([
      [1, 1],
      [2, 2],
      [3, 3],
      [4, 4],
    ]);
  });

  it('makes the line at once when waiting lines could fill the queue: a drop is counted at the call', async () => {
    const journal = new CallJournal('/dev/full', { maxQueuedBytes: 4_096, warn: () => {} });
    const record = marked(PRIMARY_JUDGE_CALL);
    for (let call = 0; call < 100; call += 1) journal.afterCall(record);
    expect(journal.dropped).toBeGreaterThan(0);
    expect(journal.pending + journal.dropped).toBe(100);
    await journal.close();
    expect(journal.dropped).toBe(100);
  });

  it('defers no more lines than the queue could hold at the longest a line may be', async () => {
    // 16 MiB by default: 15 lines of up to 1 MiB wait; the 16th call makes them all and its own.
    const journal = new CallJournal(journalPath());
    const records = Array.from({ length: 16 }, () => counted(true));
    for (const { record } of records) journal.afterCall(record);
    expect(records.slice(0, 15).every(({ reads }) => reads() > 0)).toBe(true);
    expect(records[15]?.reads()).toBeGreaterThan(0);
    await journal.close();
    expect(journal.lines).toBe(16);
  });

  it('marks the records a ChatAdapter makes, and its lines are written whole', async () => {
    const transport: ChatTransport = {
      completeChat: async () => ({ role: 'assistant', content: 'ok' }),
      completeChatRaw: async () => ({
        id: 'chatcmpl-1',
        model: 'primary-flash',
        choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }],
        usage: { prompt_tokens: 12, completion_tokens: 3, total_tokens: 15 },
      }),
    };
    const path = journalPath();
    const journal = new CallJournal(path);
    const records: CallRecord[] = [];
    const adapter = new ChatAdapter(transport, {
      observers: [{ afterCall: (record) => records.push(record) }, journal],
    });
    await adapter.complete({ model: 'primary-flash', messages: [{ role: 'user', content: 'hi' }] });
    expect((records[0] as unknown as Record<symbol, unknown>)[UNCHANGEABLE]).toBe(true);
    await journal.close();
    const [line] = linesOf(path);
    expect(line).toMatchObject({ seq: 1, callId: records[0]?.callId, usage: { total_tokens: 15 } });
  });
});
