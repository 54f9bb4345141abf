import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// Uses the built dist (turbo builds before testing).
const CHILD = fileURLToPath(new URL('./__fixtures__/journal-child.mjs', import.meta.url));

interface Ended {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly lines: string[];
}

async function runChild(
  count: number,
  mode: string,
  highWaterMark: number,
  signal?: NodeJS.Signals,
): Promise<Ended> {
  const path = join(mkdtempSync(join(tmpdir(), 'journal-exit-')), 'run.jsonl');
  const child = spawn(process.execPath, [CHILD, path, String(count), mode, String(highWaterMark)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const ended = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, endSignal) => resolve({ code, signal: endSignal })),
  );
  await new Promise<void>((resolve) => {
    child.stdout.on('data', (data: Buffer) => {
      if (data.toString().includes('ready')) resolve();
    });
  });
  if (signal) child.kill(signal);
  const { code, signal: endSignal } = await ended;
  const lines = readFileSync(path, 'utf8').split('\n');
  expect(lines.pop()).toBe('');
  return { code, signal: endSignal, lines };
}

function expectAllLines(lines: string[], count: number): void {
  expect(lines).toHaveLength(count);
  // Every line whole, in call order.
  expect(lines.map((line) => JSON.parse(line).durationMs)).toEqual(
    Array.from({ length: count }, (_, i) => i),
  );
}

describe('CallJournal at process exit', () => {
  it('writes every buffered line on SIGTERM, and the signal still ends the process', async () => {
    const ended = await runChild(5_000, 'wait', 1e9, 'SIGTERM');
    expect(ended.signal).toBe('SIGTERM');
    expectAllLines(ended.lines, 5_000);
  }, 30_000);

  it('writes every line on SIGINT with asynchronous writes under way', async () => {
    const ended = await runChild(20_000, 'wait', 4_096, 'SIGINT');
    expect(ended.signal).toBe('SIGINT');
    expectAllLines(ended.lines, 20_000);
  }, 30_000);

  it('leaves the exit to a SIGTERM handler of the program, and still writes every line', async () => {
    const ended = await runChild(3_000, 'own-handler', 1e9, 'SIGTERM');
    expect(ended).toMatchObject({ code: 7, signal: null });
    expectAllLines(ended.lines, 3_000);
  }, 30_000);

  it('writes every line when the program just ends without closing the journal', async () => {
    const ended = await runChild(3_000, 'natural', 1e9);
    expect(ended).toMatchObject({ code: 0, signal: null });
    expectAllLines(ended.lines, 3_000);
  }, 30_000);
});
