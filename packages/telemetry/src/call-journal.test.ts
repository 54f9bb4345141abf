import { appendFileSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import {
  GATEWAY_DETECTOR_CALL,
  PRIMARY_JUDGE_CALL,
  RECORDS,
  REJECTED_CALL,
} from './__fixtures__/call-records.js';
import { CallJournal } from './call-journal.js';
import { type JournalIssue, readJournal } from './read-journal.js';

const PRIMARY = { provider: 'primary', baseUrl: 'https://api.primary.example', thinking: false };

function journalPath(): string {
  return join(mkdtempSync(join(tmpdir(), 'journal-')), 'run.jsonl');
}

function linesOf(path: string): Record<string, unknown>[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line));
}

describe('CallJournal', () => {
  describe('writing', () => {
    it('writes one line per call: the record, role, endpoint, outcome and degradation flag', async () => {
      const path = journalPath();
      const journal = new CallJournal(path, { endpoint: PRIMARY });
      for (const record of RECORDS) journal.afterCall(record);
      await journal.close();
      const lines = linesOf(path);
      expect(lines).toHaveLength(4);
      expect(lines[0]).toEqual({
        v: 2,
        seq: 1,
        ...JSON.parse(JSON.stringify(PRIMARY_JUDGE_CALL)),
        role: 'judge',
        // A record without a tenant is journaled with it null.
        tenant: null,
        // The record, made by hand, names no process: the line names the writer's.
        host: hostname(),
        pid: process.pid,
        endpoint: PRIMARY,
        outcome: 'ok',
        degradation: false,
      });
      expect(lines[2]).toMatchObject({ outcome: 'model_rejected', degradation: true, role: 'judge' });
      expect(lines[3]).toMatchObject({ outcome: 'rate_limited', degradation: false, role: null });
    });

    it('numbers its lines 1, 2, 3… in the order written, keeping each record’s callId, host and pid', async () => {
      const path = journalPath();
      const journal = new CallJournal(path, { endpoint: PRIMARY });
      // As the adapter makes them: the call's names first.
      const named = (callId: string) => ({ callId, host: 'worker-7', pid: 4242, ...PRIMARY_JUDGE_CALL });
      journal.afterCall(named('call-a'));
      // Another endpoint's writer into the same journal shares its numbering.
      journal.forEndpoint(null).afterCall?.(named('call-b'));
      journal.afterCall(named('call-c'));
      await journal.close();
      // A journal opened on the file later is a writer of its own: it starts again at 1.
      const later = new CallJournal(path, { endpoint: PRIMARY });
      later.afterCall(named('call-d'));
      await later.close();
      const lines = linesOf(path);
      expect(lines.map((line) => [line.v, line.seq, line.callId, line.host, line.pid])).toEqual([
        [2, 1, 'call-a', 'worker-7', 4242],
        [2, 2, 'call-b', 'worker-7', 4242],
        [2, 3, 'call-c', 'worker-7', 4242],
        [2, 1, 'call-d', 'worker-7', 4242],
      ]);
      // Each line starts with its format and number.
      expect(readFileSync(path, 'utf8').startsWith('{"v":2,"seq":1,"callId":"call-a",')).toBe(true);
    });

    it('keeps the number of a line it drops, so the gap shows in the file', async () => {
      const probe = new CallJournal(journalPath());
      probe.afterCall(PRIMARY_JUDGE_CALL);
      await probe.close();
      const line = readFileSync(probe.path).length;
      const path = journalPath();
      // Room for two queued lines: the third is dropped.
      const journal = new CallJournal(path, { maxQueuedBytes: line * 2.5, warn: () => {} });
      for (let index = 0; index < 3; index += 1) journal.afterCall(PRIMARY_JUDGE_CALL);
      await journal.flush();
      journal.afterCall(PRIMARY_JUDGE_CALL);
      expect(await journal.close()).toBe(1);
      expect(linesOf(path).map((written) => written.seq)).toEqual([1, 2, 4]);
    });

    it('does not block the call: nothing is on disk until a write runs', async () => {
      const path = journalPath();
      const journal = new CallJournal(path, { endpoint: PRIMARY });
      journal.afterCall(PRIMARY_JUDGE_CALL);
      expect(readFileSync(path, 'utf8')).toBe('');
      await journal.flush();
      expect(linesOf(path)).toHaveLength(1);
      await journal.close();
    });

    it('writes after flushIntervalMs without being asked', async () => {
      const path = journalPath();
      const journal = new CallJournal(path, { flushIntervalMs: 5 });
      journal.afterCall(PRIMARY_JUDGE_CALL);
      await expect.poll(() => linesOf(path).length, { timeout: 10_000 }).toBe(1);
      await journal.close();
    });

    it('keeps only provider, address and thinking of the endpoint, never credentials', async () => {
      const path = journalPath();
      const endpoint = {
        provider: 'custom',
        baseUrl: 'https://user:sk-secret-key@llm.internal.example/v1',
        thinking: true,
        apiKey: 'sk-secret-key',
      };
      const journal = new CallJournal(path, { endpoint });
      journal.afterCall(GATEWAY_DETECTOR_CALL);
      await journal.close();
      const text = readFileSync(path, 'utf8');
      expect(text).not.toContain('sk-secret-key');
      expect(linesOf(path)[0]?.endpoint).toEqual({
        provider: 'custom',
        baseUrl: 'https://llm.internal.example/v1',
        thinking: true,
      });
    });

    it('adds content only through annotate, under extra', async () => {
      const path = journalPath();
      const journal = new CallJournal(path, { annotate: (record) => ({ note: `judged ${record.model}` }) });
      journal.afterCall(PRIMARY_JUDGE_CALL);
      await journal.close();
      expect(linesOf(path)[0]?.extra).toEqual({ note: 'judged primary-flash' });
    });

    it('appends to an existing journal, closing off a torn last line first', async () => {
      const path = journalPath();
      const first = new CallJournal(path);
      first.afterCall(PRIMARY_JUDGE_CALL);
      await first.close();
      appendFileSync(path, '{"v":1,"model":"primary-fl');
      const second = new CallJournal(path);
      second.forEndpoint(PRIMARY).afterCall?.(REJECTED_CALL);
      await second.close();
      const issues: JournalIssue[] = [];
      const read = [];
      for await (const line of readJournal(path, { onIssue: (issue) => issues.push(issue) })) read.push(line);
      expect(read.map((line) => line.model)).toEqual(['primary-flash', 'primary-old']);
      expect(read[1]?.endpoint).toEqual(PRIMARY);
      expect(issues).toEqual([
        { file: path, line: 2, kind: 'malformed', message: `${path}:2: not JSON, skipped` },
      ]);
    });

    it('drops and counts records given after close, without throwing', async () => {
      const path = journalPath();
      const journal = new CallJournal(path);
      await journal.close();
      expect(() => journal.afterCall(PRIMARY_JUDGE_CALL)).not.toThrow();
      expect(journal.dropped).toBe(1);
      expect(journal.lines).toBe(0);
    });

    it('writes many lines in order across batches', async () => {
      const path = journalPath();
      const journal = new CallJournal(path, { highWaterMark: 1_000 });
      for (let call = 0; call < 2_000; call++) journal.afterCall({ ...PRIMARY_JUDGE_CALL, durationMs: call });
      await journal.close();
      expect(linesOf(path).map((line) => line.durationMs)).toEqual(
        Array.from({ length: 2_000 }, (_, i) => i),
      );
    });

    it('names bad options', () => {
      expect(() => new CallJournal('')).toThrow(/path must be a non-empty file path/);
      expect(() => new CallJournal(journalPath(), { highWaterMark: 0 })).toThrow(
        /options.highWaterMark must be a positive number/,
      );
      expect(() => new CallJournal(journalPath(), { endpoint: { provider: 'primary' } as never })).toThrow(
        /endpoint must have a string provider and baseUrl/,
      );
    });
  });
});

describe('readJournal', () => {
  it('skips a torn last line with a warning, and names malformed lines by number', async () => {
    const path = journalPath();
    const good = JSON.stringify({ v: 1, ...PRIMARY_JUDGE_CALL });
    writeFileSync(
      path,
      `${good}\n\nnot json\n[1,2]\n{"model":"m","at":"yesterday"}\n${good}\n${good.slice(0, 40)}`,
    );
    const issues: JournalIssue[] = [];
    const models: string[] = [];
    for await (const line of readJournal(path, { onIssue: (issue) => issues.push(issue) }))
      models.push(line.model);
    expect(models).toEqual(['primary-flash', 'primary-flash']);
    expect(issues.map((issue) => [issue.line, issue.kind])).toEqual([
      [3, 'malformed'],
      [4, 'invalid'],
      [5, 'invalid'],
      [7, 'torn'],
    ]);
    expect(issues[2]?.message).toBe(
      `${path}:5: at: expected an ISO time with a zone (2026-11-23T09:00:00Z), got "yesterday", skipped`,
    );
    expect(issues[3]?.message).toBe(`${path}:7: the last line is incomplete (cut off mid-write), skipped`);
  });

  it('warns by default', async () => {
    const path = journalPath();
    writeFileSync(path, '{"model":"primary-flash","at":"2026-11-23T08:00:00Z"}\n{"model":');
    const warnings: string[] = [];
    const listener = (warning: Error) => warnings.push(warning.message);
    process.on('warning', listener);
    try {
      for await (const _ of readJournal(path)) {
      }
      await new Promise((resolve) => setImmediate(resolve));
    } finally {
      process.off('warning', listener);
    }
    expect(warnings).toEqual([`${path}:2: the last line is incomplete (cut off mid-write), skipped`]);
  });

  it('stops reading when the loop stops: the source is closed, not read on', async () => {
    const good = `${JSON.stringify({ v: 1, ...PRIMARY_JUDGE_CALL })}\n`;
    let reads = 0;
    const source = Readable.from(
      (function* () {
        for (;;) {
          reads += 1;
          yield Buffer.from(good.repeat(10));
        }
      })(),
    );
    let seen = 0;
    for await (const _ of readJournal(source)) if (++seen === 25) break;
    expect(source.destroyed).toBe(true);
    expect(reads).toBeLessThan(10);
  });

  it('reads a last line without a newline when it is whole', async () => {
    const path = journalPath();
    writeFileSync(path, '{"model":"primary-flash","at":"2026-11-23T08:00:00Z"}');
    const lines = [];
    for await (const line of readJournal(path)) lines.push(line);
    expect(lines).toHaveLength(1);
  });
});
