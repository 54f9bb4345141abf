import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { type JournalIssue, readJournal } from './read-journal.js';

// Uses the built dist (turbo builds before testing).
const WRITER = fileURLToPath(new URL('./__fixtures__/journal-writer.mjs', import.meta.url));

function journalPath(): string {
  return join(mkdtempSync(join(tmpdir(), 'journal-writers-')), 'run.jsonl');
}

function runWriter(path: string, writer: string, count: number): Promise<{ lines: number; dropped: number }> {
  const child = spawn(process.execPath, [WRITER, path, writer, String(count)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let output = '';
  child.stdout.on('data', (data: Buffer) => {
    output += data.toString();
  });
  return new Promise((resolve, reject) =>
    child.on('exit', (code) =>
      code === 0 ? resolve(JSON.parse(output)) : reject(new Error(`writer ${writer} exited ${code}`)),
    ),
  );
}

async function readAll(path: string) {
  const issues: JournalIssue[] = [];
  const lines = [];
  for await (const line of readJournal(path, { onIssue: (issue) => issues.push(issue) })) lines.push(line);
  return { lines, issues };
}

describe('CallJournal with several writer processes on one file', () => {
  it.each([2, 4])(
    'keeps every line of %i processes writing at once, each writer’s lines in order',
    async (writers) => {
      const path = journalPath();
      const count = 3_000;
      const names = Array.from({ length: writers }, (_, index) => `writer-${index}`);
      const results = await Promise.all(names.map((name) => runWriter(path, name, count)));
      for (const result of results) expect(result).toEqual({ lines: count, dropped: 0 });
      const { lines, issues } = await readAll(path);
      expect(issues).toEqual([]);
      expect(lines).toHaveLength(writers * count);
      for (const name of names) {
        const own = lines.filter((line) => line.role === name).map((line) => line.durationMs);
        expect(own).toEqual(Array.from({ length: count }, (_, index) => index));
      }
      expect(readFileSync(path).includes(0)).toBe(false);
    },
    120_000,
  );

  it('says at exit, on stderr, how many lines a process ending without close could not write', async () => {
    const child = spawn(process.execPath, [WRITER, '/dev/full', 'full', '40', 'natural'], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (data: Buffer) => {
      stderr += data.toString();
    });
    const code = await new Promise((resolve) => child.on('exit', resolve));
    expect(code).toBe(0);
    expect(stderr).toMatch(
      /^Warning: journal \/dev\/full: 40 lines were not written and are missing from it \(first failed write: .*ENOSPC.*\); 0 written\n$/,
    );
  });

  it('journals to stdout with the path -', async () => {
    const child = spawn(process.execPath, [WRITER, '-', 'stdout', '300'], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let output = '';
    child.stdout.on('data', (data: Buffer) => {
      output += data.toString();
    });
    await new Promise((resolve) => child.on('exit', resolve));
    const lines = output
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(lines.pop()).toEqual({ lines: 300, dropped: 0 });
    expect(lines.map((line) => line.durationMs)).toEqual(Array.from({ length: 300 }, (_, index) => index));
  });

  it('loses at most the last line to SIGKILL mid-write, and the reader names it', async () => {
    const path = journalPath();
    const child = spawn(process.execPath, [WRITER, path, 'killed', '0', 'kill'], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    await new Promise<void>((resolve) => child.stdout.once('data', () => resolve()));
    // Killed mid-run, once it has written a good many lines (whatever the machine's load).
    await expect
      .poll(() => (existsSync(path) ? statSync(path).size : 0), { timeout: 20_000, interval: 20 })
      .toBeGreaterThan(400_000);
    const ended = new Promise((resolve) => child.on('exit', resolve));
    child.kill('SIGKILL');
    await ended;
    const text = readFileSync(path, 'utf8');
    const { lines, issues } = await readAll(path);
    expect(lines.length).toBeGreaterThan(500);
    expect(lines.map((line) => line.durationMs)).toEqual(
      Array.from({ length: lines.length }, (_, index) => index),
    );
    if (text.endsWith('\n')) expect(issues).toEqual([]);
    else {
      expect(issues).toHaveLength(1);
      expect(issues[0]).toMatchObject({ kind: 'torn', line: lines.length + 1 });
    }
  }, 60_000);
});
