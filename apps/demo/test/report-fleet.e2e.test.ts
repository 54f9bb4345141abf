// Issue 44: `switchboard report` over many journals (a fleet's), each call once, by host and
// process; `--verify` over all of them. The journals are the demo's real ones (each written by
// the real CallJournal in its own CLI process, as two workers would).
import { copyFile, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './run-cli.js';
import { tempDirectory } from './temp-directory.js';

const directory = tempDirectory('switchboard-fleet-');

interface Totals {
  calls: number;
  costNanoUsd: number;
}

interface FleetFigures {
  totals: Totals;
  hosts: Record<string, Totals & { processes: Record<string, Totals> }>;
  repeats: { count: number; lines: { file: string; line: number; of: { file: string; line: number } }[] };
  conflicts: { count: number };
  journals: { read: number; unreadable: { file: string; why: string }[] };
}

let fleet = '';
let single: Totals[] = [];

beforeAll(async () => {
  fleet = join(directory.path, 'fleet');
  await mkdir(fleet);
  for (const [name, host] of [
    ['worker-1.jsonl', 'alpha'],
    ['worker-2.jsonl', 'beta'],
  ] as const) {
    const demo = await runCli(['demo', '--journal', join(fleet, name)], { SWITCHBOARD_HOST: host });
    expect(demo.code, demo.stderr).toBe(0);
  }
  single = [];
  for (const name of ['worker-1.jsonl', 'worker-2.jsonl']) {
    const run = await runCli(['report', '--json', join(fleet, name)]);
    single.push((JSON.parse(run.stdout) as FleetFigures).totals);
  }
});

describe('switchboard report over many journals', () => {
  it('reports a folder as one: totals to the nano-dollar, by host and process', async () => {
    const run = await runCli(['report', '--json', fleet]);
    expect(run.code, run.stderr).toBe(0);
    const figures = JSON.parse(run.stdout) as FleetFigures;
    expect(figures.totals.calls).toBe((single[0]?.calls ?? 0) + (single[1]?.calls ?? 0));
    expect(figures.totals.costNanoUsd).toBe((single[0]?.costNanoUsd ?? 0) + (single[1]?.costNanoUsd ?? 0));
    expect(Object.keys(figures.hosts).sort()).toEqual(['alpha', 'beta']);
    expect(figures.hosts.alpha?.costNanoUsd).toBe(single[0]?.costNanoUsd);
    expect(Object.keys(figures.hosts.beta?.processes ?? {})).toHaveLength(1);
    const text = await runCli(['report', fleet]);
    expect(text.stdout).toContain('By host and process');
    expect(text.stdout).toContain('2 journals read');
  });

  it('counts a journal copied twice once, naming the lines read twice', async () => {
    const copy = join(directory.path, 'copy.jsonl');
    await copyFile(join(fleet, 'worker-1.jsonl'), copy);
    const run = await runCli(['report', '--json', `${fleet}/*.jsonl`, copy]);
    expect(run.code, run.stderr).toBe(0);
    const figures = JSON.parse(run.stdout) as FleetFigures;
    expect(figures.totals.costNanoUsd).toBe((single[0]?.costNanoUsd ?? 0) + (single[1]?.costNanoUsd ?? 0));
    expect(figures.repeats.count).toBe(single[0]?.calls);
    expect(figures.repeats.lines[0]).toMatchObject({ line: 1, of: { line: 1 } });
    const verify = await runCli(['report', '--verify', fleet, copy]);
    expect(verify.stdout).toContain('read twice');
    expect(verify.stdout).toContain('no call told two ways');
  });

  it('names a journal it cannot read, reports the others, and exits 2', async () => {
    const run = await runCli([
      'report',
      '--json',
      fleet,
      join(directory.path, 'gone.jsonl'),
      `${directory.path}/none-*.jsonl`,
    ]);
    expect(run.code).toBe(2);
    const figures = JSON.parse(run.stdout) as FleetFigures;
    expect(figures.journals.read).toBe(2);
    expect(figures.journals.unreadable.map((journal) => journal.why)).toEqual([
      'no file matches it',
      'ENOENT: no such file or directory',
    ]);
    expect(run.stderr).toContain('gone.jsonl');
  });

  it('fails --verify on a line edited in one journal, naming the file and the line', async () => {
    const edited = join(directory.path, 'edited');
    await mkdir(edited);
    await copyFile(join(fleet, 'worker-2.jsonl'), join(edited, 'worker-2.jsonl'));
    const lines = (await readFile(join(fleet, 'worker-1.jsonl'), 'utf8')).trim().split('\n');
    const index = lines.findIndex((line) => (JSON.parse(line) as { costNanoUsd: number | null }).costNanoUsd);
    const line = JSON.parse(lines[index] as string) as { costNanoUsd: number; costUsd: number };
    lines[index] = JSON.stringify({
      ...line,
      costNanoUsd: line.costNanoUsd - 1000,
      costUsd: (line.costNanoUsd - 1000) / 1e9,
    });
    const path = join(edited, 'worker-1.jsonl');
    await writeFile(path, `${lines.join('\n')}\n`);
    const run = await runCli(['report', '--verify', edited]);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain(`${path}:${index + 1}: differs`);
    expect(run.stderr).toContain(`line of ${path} does not add up`);
  });
});
