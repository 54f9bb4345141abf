// Bench rows of the journal's reader: `switchboard report` and `switchboard cost`
// (the built CLI, as users run it) on a 1,000,000-line journal (time and peak
// RSS) and on /dev/zero for 10 s (peak RSS against a stated bound). Prints
// markdown; not part of the tests.
//
// Usage (from the root): pnpm --filter @switchboard/bench bench:journal [--lines N] [--zero-seconds S]
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { machineInfo } from './machine.js';
import { measure, writeLines } from './measure-cli.js';

/** The bound peak RSS must stay under on an endless input. */
const ZERO_BOUND_MIB = 200;

const { values } = parseArgs({
  args: process.argv.slice(2).filter((argument) => argument !== '--'),
  options: {
    lines: { type: 'string', default: '1000000' },
    'zero-seconds': { type: 'string', default: '10' },
  },
});
const lines = Number(values.lines);
const zeroSeconds = Number(values['zero-seconds']);

async function writeJournal(path: string, count: number): Promise<void> {
  const start = Date.parse('2026-11-23T00:00:00.000Z');
  const roles = ['detector', 'judge', 'proposer', 'triage', 'classifier'];
  await writeLines(path, count, (index) => {
    return JSON.stringify({
      v: 1,
      model: index % 3 === 0 ? 'primary-v4-pro' : 'primary-flash',
      usage: {
        prompt_tokens: 1200,
        completion_tokens: 300,
        prompt_cache_hit_tokens: 1024,
        prompt_cache_miss_tokens: 176,
      },
      costUsd: 0.00021,
      costNanoUsd: 210_000,
      pricedAs: 'primary-flash',
      priceSource: 'table',
      tariff: null,
      at: new Date(start + index * 50).toISOString(),
      durationMs: 800,
      attempts: 1,
      role: roles[index % roles.length],
      error: null,
      endpoint: { provider: 'primary', baseUrl: 'https://api.primary.example', thinking: false },
      outcome: 'ok',
      degradation: false,
    });
  });
}

const machine = machineInfo();
console.log(`machine: ${machine.cpu}, ${machine.cores} cores, Node ${machine.node}`);
const folder = mkdtempSync(join(tmpdir(), 'bench-journal-'));
try {
  const path = join(folder, 'journal.jsonl');
  await writeJournal(path, lines);
  const size = statSync(path).size / 2 ** 20;
  const rows: string[] = [];
  for (const args of [
    ['report', '--json'],
    ['report', '--html', join(folder, 'report.html')],
    ['cost', '--json'],
  ]) {
    const [command = '', ...rest] = args;
    const run = await measure([command, path, ...rest]);
    rows.push(
      `| \`${args.join(' ').replace(folder, '…')}\` | ${lines.toLocaleString('en-US')} lines (${size.toFixed(0)} MiB) | ${run.seconds.toFixed(1)} s | ${run.peakRssMiB.toFixed(0)} MiB | exit ${run.code} |`,
    );
  }
  for (const command of ['report', 'cost']) {
    const run = await measure([command, '/dev/zero'], zeroSeconds * 1000);
    const within =
      run.peakRssMiB < ZERO_BOUND_MIB ? `under ${ZERO_BOUND_MIB} MiB: yes` : `OVER ${ZERO_BOUND_MIB} MiB`;
    rows.push(
      `| \`${command}\` | /dev/zero, killed after ${zeroSeconds} s | ${run.seconds.toFixed(1)} s | ${run.peakRssMiB.toFixed(0)} MiB | ${within} |`,
    );
  }
  console.log(
    `\n| command | input | wall time | peak RSS | note |\n|---|---|---|---|---|\n${rows.join('\n')}\n`,
  );
} finally {
  rmSync(folder, { recursive: true, force: true });
}
