// Issue 40 item 8: `report --verify` passed journals it could not prove — a line dropped, a line
// written 5 times, lines reversed, usage and cost zeroed together, every line made unverifiable,
// an unreadable line, a budget's limit removed or changed. Each journal below is the demo's
// real journal (written by the real CallJournal in the CLI's process), then tampered with.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './run-cli.js';
import { tempDirectory } from './temp-directory.js';

const directory = tempDirectory('switchboard-verify-tampered-');

interface Line {
  v: number;
  seq?: number;
  callId?: string;
  host?: string;
  pid?: number;
  model: string;
  role: string | null;
  attempts: number;
  usage: Record<string, unknown> | null;
  costUsd: number | null;
  costNanoUsd: number | null;
  priceCheckedAt?: string | null;
  pricedAs?: string | null;
  budgets?: { scope: string; limitUsd: unknown }[];
}

let texts: string[] = [];
let lines: Line[] = [];

beforeAll(async () => {
  const journal = join(directory.path, 'run.jsonl');
  const demo = await runCli(['demo', '--journal', journal]);
  expect(demo.code).toBe(0);
  texts = (await readFile(journal, 'utf8')).trim().split('\n');
  lines = texts.map((text) => JSON.parse(text) as Line);
});

/** Writes the lines as a journal named `name` and runs `report --verify` on it. */
async function verify(name: string, journal: readonly (Line | string)[], ...flags: string[]) {
  const text = journal.map((line) => (typeof line === 'string' ? line : JSON.stringify(line))).join('\n');
  const path = await directory.file(name, `${text}\n`);
  return runCli(['report', '--verify', path, ...flags]);
}

/** The first line of a priced call of the demo (a reply settled exact), by its index. */
function pricedIndex(from = 0): number {
  const index = lines.findIndex((line, at) => at >= from && (line.costNanoUsd ?? 0) > 0);
  expect(index).toBeGreaterThanOrEqual(0);
  return index;
}

describe('switchboard report --verify on the demo’s journal', () => {
  it('writes numbered lines naming each call and its process, and verifies them', async () => {
    expect(lines.length).toBeGreaterThan(5);
    const { host, pid } = lines[0] as Line;
    lines.forEach((line, index) => {
      expect(line).toMatchObject({ v: 2, seq: index + 1, host, pid });
      expect(line.callId).toMatch(/^[0-9a-f-]{36}$/);
    });
    expect(new Set(lines.map((line) => line.callId)).size).toBe(lines.length);
    const run = await verify('clean.jsonl', lines);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(
      /; numbered lines of 1 process followed, none missing, repeated or out of order\n$/,
    );
  });
});

describe('switchboard report --verify on a tampered journal', () => {
  it('names a line dropped', async () => {
    const dropped = lines.filter((_, index) => index !== 3);
    const run = await verify('dropped.jsonl', dropped);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain(
      `dropped.jsonl:4: missing: seq 4 of host ${JSON.stringify(lines[0]?.host)} pid ${lines[0]?.pid} is in no line (between lines 3 and 4)\n`,
    );
    expect(run.stderr).toBe('switchboard: 1 line missing\n');
  });

  it('names each copy of a line written 5 times, and counts its call once', async () => {
    const index = pricedIndex();
    const copies = Array.from({ length: 5 }, () => lines[index] as Line);
    const run = await verify('copied.jsonl', [...lines, ...copies]);
    expect(run.code).toBe(1);
    for (let copy = 1; copy <= 5; copy += 1)
      expect(run.stdout).toContain(
        `copied.jsonl:${lines.length + copy}: written twice: the same call as line ${index + 1} (callId "${lines[index]?.callId}")\n`,
      );
    expect(run.stderr).toBe('switchboard: 5 lines written twice\n');
    const json = JSON.parse(
      (await runCli(['report', '--verify', join(directory.path, 'copied.jsonl'), '--json'])).stdout,
    );
    expect(json).toMatchObject({ ok: false, sequence: { duplicates: 5 } });
    // Each call once: the copies are not re-derived again.
    expect(json.verified + json.withoutCost).toBe(lines.length);
  });

  it('names lines reversed as out of order', async () => {
    const run = await verify('reversed.jsonl', [...lines].reverse());
    expect(run.code).toBe(1);
    const last = lines.length;
    expect(run.stdout).toContain(
      `reversed.jsonl:2: out of order: seq ${last - 1} of host ${JSON.stringify(lines[0]?.host)} pid ${lines[0]?.pid} comes after seq ${last} (line 1)\n`,
    );
    expect(run.stdout).not.toContain(': missing: ');
    expect(run.stderr).toBe(`switchboard: ${last - 1} lines out of order\n`);
  });

  it('names a call whose usage and cost were zeroed together', async () => {
    const index = pricedIndex();
    const zero = (value: unknown): unknown =>
      typeof value === 'number'
        ? 0
        : Object.fromEntries(Object.entries(value as object).map(([key, inner]) => [key, zero(inner)]));
    const zeroed = lines.map((line, at) =>
      at === index ? { ...line, usage: zero(line.usage) as Line['usage'], costUsd: 0, costNanoUsd: 0 } : line,
    );
    const run = await verify('zeroed.jsonl', zeroed);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain(
      `zeroed.jsonl:${index + 1}: inconsistent: a reply settled exact with 0 prompt tokens: every request sends a prompt, so its usage was changed (and its cost with it)\n`,
    );
    expect(run.stderr).toBe('switchboard: 1 line contradicts itself\n');
  });

  it('fails a journal whose every priced line was made unverifiable, unless asked to accept them, naming why', async () => {
    const priced = lines.filter((line) => (line.costNanoUsd ?? 0) > 0).length;
    const old = lines.map((line) =>
      (line.costNanoUsd ?? 0) > 0
        ? { ...line, costUsd: 0, costNanoUsd: 0, priceCheckedAt: '2020-01-01' }
        : line,
    );
    const run = await verify('old-checked.jsonl', old);
    expect(run.code).toBe(1);
    const index = pricedIndex();
    expect(run.stdout).toContain(
      `old-checked.jsonl:${index + 1}: unverifiable: priced by the entry for ${lines[index]?.pricedAs} checked 2020-01-01, which the installed data no longer has`,
    );
    expect(run.stderr).toBe(
      `switchboard: cannot be verified: ${priced} lines whose cost cannot be re-derived (--allow-unverifiable accepts such lines, still naming why)\n`,
    );
    const accepted = await verify('old-checked.jsonl', old, '--allow-unverifiable');
    expect(accepted.code).toBe(0);
    expect(accepted.stdout).toContain(
      `accepted with --allow-unverifiable, not verified: ${priced} lines whose cost cannot be re-derived\n`,
    );

    const unknown = lines.map((line) =>
      (line.costNanoUsd ?? 0) > 0 ? { ...line, pricedAs: 'mystery-model' } : line,
    );
    const renamed = await verify('unknown-priced.jsonl', unknown);
    expect(renamed.code).toBe(1);
    expect(renamed.stdout).toContain(
      `unknown-priced.jsonl:${index + 1}: unverifiable: the installed price data has no price for mystery-model at `,
    );
    expect(renamed.stderr).toContain(
      `switchboard: cannot be verified: ${priced} lines whose cost cannot be re-derived`,
    );
  });

  it('fails a journal with an unreadable line (its cost in no figure), unless asked to accept it', async () => {
    const index = pricedIndex();
    const broken = texts.map((text, at) => (at === index ? text.replace('"costUsd":', '"costUsd":-') : text));
    const run = await verify('unreadable.jsonl', broken);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`unreadable.jsonl:${index + 1}: costUsd: expected a finite number >= 0`);
    expect(run.stdout).toContain(
      '1 unreadable line (named above): its call is in no figure, so it cannot be verified\n',
    );
    // The number it held is its, not a line dropped.
    expect(run.stdout).not.toContain(': missing: ');
    expect(run.stderr).toContain(
      'switchboard: cannot be verified: 1 unreadable line (--allow-unverifiable accepts such lines, still naming why)\n',
    );
    const accepted = await verify('unreadable.jsonl', broken, '--allow-unverifiable');
    expect(accepted.code).toBe(0);
    expect(accepted.stdout).toContain(
      'accepted with --allow-unverifiable, not verified: 1 unreadable line\n',
    );
  });

  it('names a sent call whose budgets were removed', async () => {
    const index = lines.findIndex((line, at) => at > 0 && line.attempts > 0 && line.budgets !== undefined);
    const removed = lines.map((line, at) => {
      if (at !== index) return line;
      const { budgets: _removed, ...rest } = line;
      return rest;
    });
    const run = await verify('no-budgets.jsonl', removed);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain(
      `no-budgets.jsonl:${index + 1}: unverifiable: a sent call charged to no budget scope, where the same process's calls were charged to "demo" (line 1): its cost is checked against no limit\n`,
    );
    expect(run.stderr).toBe(
      'switchboard: cannot be verified: 1 sent call charged to no budget scope (--allow-unverifiable accepts such lines, still naming why)\n',
    );
  });

  it.each([
    [9e6, 'limitUsd 9000000 here, 0.0005 on line', "a scope's limit does not change while its budget runs"],
    [-1, 'limitUsd -1 is not a limit', 'so its spend cannot be checked'],
    ['x', 'limitUsd "x" is not a limit', 'so its spend cannot be checked'],
  ])('names a budget limit set to %j', async (limit, says, why) => {
    const triage = lines.flatMap((line, at) => (line.role === 'triage' && line.budgets ? [at] : []));
    expect(triage.length).toBeGreaterThan(1);
    const index = triage[1] as number;
    const changed = lines.map((line, at) =>
      at === index
        ? {
            ...line,
            budgets: line.budgets?.map((budget) =>
              budget.scope === 'demo/triage' ? { ...budget, limitUsd: limit } : budget,
            ),
          }
        : line,
    );
    const run = await verify(`limit-${String(limit)}.jsonl`, changed);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain(
      `limit-${String(limit)}.jsonl:${index + 1}: budget scope "demo/triage": ${says}`,
    );
    expect(run.stdout).toContain(why);
  });
});

describe('switchboard report --verify on a journal of format 1', () => {
  it('still reads it, and says its lines cannot be followed: accepted with --allow-unverifiable', async () => {
    const old = lines.map(({ seq: _seq, callId: _callId, host: _host, pid: _pid, ...line }) => ({
      ...line,
      v: 1,
    }));
    const run = await verify('format-1.jsonl', old);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain(
      `${lines.length} lines without a number (journal format 1, or not written by a CallJournal): a line missing, repeated or out of order among them cannot be found: lines 1, 2, 3,`,
    );
    // Every cost is still re-derived.
    expect(run.stdout).not.toContain(': differs: ');
    expect(run.stderr).toBe(
      `switchboard: cannot be verified: ${lines.length} lines without a number (--allow-unverifiable accepts such lines, still naming why)\n`,
    );
    const accepted = await verify('format-1.jsonl', old, '--allow-unverifiable');
    expect(accepted.code).toBe(0);
    expect(accepted.stdout).toContain(
      `accepted with --allow-unverifiable, not verified: ${lines.length} lines without a number\n`,
    );
    const report = await runCli(['report', join(directory.path, 'format-1.jsonl')]);
    expect(report).toMatchObject({ code: 0, stderr: '' });
  });

  it('takes --allow-unverifiable only with --verify', async () => {
    const run = await runCli(['report', 'x.jsonl', '--allow-unverifiable']);
    expect(run.code).toBe(2);
    expect(run.stderr).toBe(
      'switchboard: --allow-unverifiable: only with --verify (it accepts the lines --verify cannot verify)\n',
    );
  });
});
