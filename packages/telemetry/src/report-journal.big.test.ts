import { execFileSync } from 'node:child_process';
import { appendFileSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { PRIMARY_JUDGE_CALL } from './__fixtures__/call-records.js';
import { journalLineOf } from './journal-line.js';

// Uses the built dist (turbo builds before testing).
const CHILD = fileURLToPath(new URL('./__fixtures__/report-child.mjs', import.meta.url));
const LINES = 200_000;
const MALFORMED = new Set([1_000, 150_000]);
const START = Date.parse('2026-11-23T06:00:00.000Z');
const ENDPOINT = { provider: 'primary', baseUrl: 'https://api.primary.example', thinking: false };

/** Writes a journal of LINES lines over three hours (two malformed, the last one torn); returns the cost sum. */
function writeBigJournal(path: string): number {
  let costNanoUsdSum = 0;
  let chunk: string[] = [];
  for (let number = 1; number <= LINES; number++) {
    if (MALFORMED.has(number)) chunk.push('{"v":1,"model":"primary-flash",');
    else if (number === LINES) chunk.push('{"v":1,"model":"primary-fl');
    else {
      const costNanoUsd = 100_000 + (number % 7) * 10_000;
      const cost = costNanoUsd / 1e9;
      costNanoUsdSum += costNanoUsd;
      const at = new Date(START + Math.floor((number * 3 * 3_600_000) / LINES)).toISOString();
      const record = {
        ...PRIMARY_JUDGE_CALL,
        costUsd: cost,
        costNanoUsd,
        at,
        role: number % 2 === 0 ? 'judge' : 'detector',
      };
      chunk.push(JSON.stringify(journalLineOf(record, ENDPOINT, undefined)));
    }
    if (chunk.length === 10_000 || number === LINES) {
      appendFileSync(path, number === LINES ? chunk.join('\n') : `${chunk.join('\n')}\n`);
      chunk = [];
    }
  }
  return costNanoUsdSum;
}

describe('reading a big journal', () => {
  it('streams 200,000 lines in bounded memory and names the malformed ones by number', () => {
    const folder = mkdtempSync(join(tmpdir(), 'journal-big-'));
    const path = join(folder, 'run.jsonl');
    let output: string;
    let costNanoUsd: number;
    try {
      costNanoUsd = writeBigJournal(path);
      expect(statSync(path).size).toBeGreaterThan(100 * 1024 * 1024);
      // A 64 MB heap cannot hold the file, let alone its parsed lines: only streaming fits.
      output = execFileSync(process.execPath, ['--expose-gc', '--max-old-space-size=64', CHILD, path], {
        encoding: 'utf8',
        maxBuffer: 16 * 1024 * 1024,
      });
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
    const { read, peakGrowth, issues, figures } = JSON.parse(output);
    expect(read).toBe(LINES - 3);
    expect(figures.totals.calls).toBe(LINES - 3);
    expect(figures.totals.costNanoUsd).toBe(costNanoUsd);
    expect(figures.skipped).toEqual({ count: 3, lines: [1_000, 150_000, LINES] });
    expect(issues).toEqual([
      `${path}:1000: not JSON, skipped`,
      `${path}:150000: not JSON, skipped`,
      `${path}:${LINES}: the last line is incomplete (cut off mid-write), skipped`,
    ]);
    expect(figures.spend.bucket).toBe('5 minutes');
    expect(figures.spend.buckets).toHaveLength(36);
    expect(peakGrowth).toBeLessThan(16 * 1024 * 1024);
  }, 120_000);
});
