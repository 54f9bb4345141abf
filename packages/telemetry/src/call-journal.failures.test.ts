import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PRIMARY_JUDGE_CALL } from './__fixtures__/call-records.js';
import { CallJournal } from './call-journal.js';

function journalPath(): string {
  return join(mkdtempSync(join(tmpdir(), 'journal-failures-')), 'run.jsonl');
}

const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('CallJournal when writes fail', () => {
  it('refuses a second journal on the same file in one process, and allows one once the first is closed', async () => {
    const path = journalPath();
    const first = new CallJournal(path);
    expect(() => new CallJournal(path)).toThrow(/already open on .*run\.jsonl.* in this process/);
    await first.close();
    const second = new CallJournal(path);
    await second.close();
  });

  it('counts every line to /dev/full as dropped, says so once, and close resolves to the count', async () => {
    const warnings: string[] = [];
    const errors: unknown[] = [];
    const journal = new CallJournal('/dev/full', {
      warn: (message) => warnings.push(message),
      onError: (error) => errors.push(error),
    });
    for (let call = 0; call < 25; call++) journal.afterCall(PRIMARY_JUDGE_CALL);
    await journal.flush();
    expect(journal.pending).toBe(25);
    await expect(journal.close()).resolves.toBe(25);
    expect(journal).toMatchObject({ lines: 0, dropped: 25, pending: 0 });
    expect(errors.length).toBeGreaterThan(0);
    expect(warnings).toEqual([
      expect.stringMatching(/^journal \/dev\/full: 25 lines were not written .*ENOSPC.*; 0 written$/),
    ]);
  });

  it('drops (and counts) the newest lines once the queue is full, keeping the oldest for the retry', async () => {
    const journal = new CallJournal('/dev/full', { maxQueuedBytes: 4_096, warn: () => {} });
    const lineBytes = 1 + JSON.stringify(PRIMARY_JUDGE_CALL).length;
    for (let call = 0; call < 100; call++) journal.afterCall(PRIMARY_JUDGE_CALL);
    expect(journal.dropped).toBeGreaterThan(0);
    expect(journal.pending + journal.dropped).toBe(100);
    expect(journal.pending).toBeLessThanOrEqual(Math.ceil(4_096 / lineBytes));
    await journal.close();
    expect(journal.dropped).toBe(100);
  });
});

describe('CallJournal annotations that fail', () => {
  it('loses only the annotation (throwing, circular, BigInt, too large), counts it and warns once', async () => {
    const path = journalPath();
    const warnings: string[] = [];
    const circular: Record<string, unknown> = {};
    circular.self = circular;
    const annotations: Array<() => Record<string, unknown>> = [
      () => {
        throw new Error('no note today');
      },
      () => circular,
      () => ({ big: 10n }),
      () => ({ text: 'x'.repeat(2_000) }),
      () => ({ note: 'kept' }),
    ];
    let call = 0;
    const journal = new CallJournal(path, {
      maxAnnotationBytes: 1_000,
      warn: (message) => warnings.push(message),
      annotate: () => (annotations[call++] as () => Record<string, unknown>)(),
    });
    for (let index = 0; index < annotations.length; index++) journal.afterCall(PRIMARY_JUDGE_CALL);
    await expect(journal.close()).resolves.toBe(0);
    expect(journal).toMatchObject({ lines: 5, annotationFailures: 4 });
    const lines = readFileSync(path, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(lines.map((line) => line.extraError ?? null)).toEqual([
      'annotate failed: Error: no note today',
      expect.stringMatching(/^annotate failed: TypeError: .*circular/i),
      expect.stringMatching(/^annotate failed: TypeError: .*BigInt/),
      'the annotation is 2011 bytes, over the cap of 1000',
      null,
    ]);
    expect(lines[4]?.extra).toEqual({ note: 'kept' });
    expect(lines.every((line) => line.model === 'primary-flash')).toBe(true);
    expect(warnings).toEqual([
      expect.stringMatching(/an annotation was left out \(annotate failed: Error: no note today\)/),
    ]);
  });
});

// A real full file system: a small tmpfs filled up, then freed while the journal retries.
describe('CallJournal on a full file system that is then freed', () => {
  const mount = mkdtempSync(join(tmpdir(), 'journal-tmpfs-'));
  beforeAll(() => {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=256k', 'tmpfs', mount]);
  });
  afterAll(() => {
    execFileSync('umount', [mount]);
    rmSync(mount, { recursive: true, force: true });
  });

  it('writes no holes and no line twice: lines + dropped equals the calls, every line whole', async () => {
    const directory = join(mount, 'run');
    mkdirSync(directory);
    const path = join(directory, 'journal.jsonl');
    const filler = join(mount, 'filler');
    // Fill the file system up, leaving no room.
    let size = 256 * 1024;
    for (;;) {
      try {
        writeFileSync(filler, Buffer.alloc(size, 1));
        break;
      } catch {
        size -= 4096;
      }
    }
    const warnings: string[] = [];
    const journal = new CallJournal(path, {
      maxQueuedBytes: 32 * 1024,
      highWaterMark: 2_048,
      warn: (message) => warnings.push(message),
    });
    const calls = 2_000;
    for (let call = 0; call < calls; call++) {
      journal.afterCall({ ...PRIMARY_JUDGE_CALL, durationMs: call });
      if (call % 100 === 0) await journal.flush();
    }
    expect(journal.dropped).toBeGreaterThan(0);
    rmSync(filler);
    await expect.poll(() => journal.pending, { timeout: 15_000, interval: 50 }).toBe(0);
    const dropped = await journal.close();
    expect(journal.lines + dropped).toBe(calls);
    const bytes = readFileSync(path);
    expect(bytes.includes(0)).toBe(false);
    const lines = bytes.toString('utf8').split('\n');
    expect(lines.pop()).toBe('');
    const numbers = lines.map((line) => JSON.parse(line).durationMs as number);
    expect(numbers).toHaveLength(journal.lines);
    // Written in call order, without repeats: what is missing is exactly what was dropped.
    for (let index = 1; index < numbers.length; index++)
      expect(numbers[index]).toBeGreaterThan(numbers[index - 1] as number);
    expect(warnings).toEqual([expect.stringContaining(`${dropped} lines were not written`)]);
    await wait(0);
  }, 60_000);
});
