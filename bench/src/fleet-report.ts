// Bench rows of `switchboard report` over a fleet's journals (issue 44): N journals of M lines each
// (default 12 x 1,000,000; each a worker on its own host, its calls spread over one day, lines in the
// order their calls ended, as CallJournal writes them), reported as one by the built CLI, as users run
// it: wall time and peak RSS (VmHWM) for 1, 4 and N journals (time per million lines: linear or not),
// and for N journals under a 256 MiB bound (also with V8's heap capped at 160 MiB). Prints markdown;
// not part of the tests.
//
// Usage (from the root): pnpm --filter @switchboard/bench bench:fleet [--journals N] [--lines M] [--keep DIR [--write-only]]
// (--keep DIR: the journals are written there once and kept; --write-only: only write them, for a later run.)
import { existsSync, mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { machineInfo } from './machine.js';
import { measure, writeLines } from './measure-cli.js';

const BOUND_MIB = 256;
/** Every call's usage: 900 prompt tokens (512 from the cache), 200 completion tokens. */
const USAGE = Object.freeze({
  prompt_tokens: 900,
  completion_tokens: 200,
  prompt_cache_hit_tokens: 512,
  prompt_cache_miss_tokens: 388,
});

const { values } = parseArgs({
  args: process.argv.slice(2).filter((argument) => argument !== '--'),
  options: {
    journals: { type: 'string', default: '12' },
    lines: { type: 'string', default: '1000000' },
    keep: { type: 'string' },
    'write-only': { type: 'boolean', default: false },
  },
});
const journals = Number(values.journals);
const lines = Number(values.lines);

/** Writes worker `worker`'s journal: `count` calls over one day, each ending 0.4-3.2 s after it started. */
async function writeJournal(path: string, worker: number, count: number): Promise<void> {
  const start = Date.parse('2026-11-23T00:00:00.000Z');
  const roles = ['detector', 'judge', 'proposer', 'triage', 'classifier'];
  const spacing = 86_400_000 / count;
  await writeLines(path, count, (index) => {
    const durationMs = 400 + ((index * 7919) % 2800);
    // Written when it ends: the line's start is its end less its duration.
    const end = start + Math.round(index * spacing) + 3200;
    const costNanoUsd = 150_000 + ((index * 31) % 90_000);
    return JSON.stringify({
      v: 2,
      seq: index + 1,
      model: index % 3 === 0 ? 'primary-v4-pro' : 'primary-flash',
      usage: USAGE,
      costUsd: costNanoUsd / 1e9,
      costNanoUsd,
      settlement: 'exact',
      pricedAs: 'primary-flash',
      priceSource: 'table',
      tariff: null,
      at: new Date(end - durationMs).toISOString(),
      durationMs,
      attempts: 1,
      role: roles[index % roles.length],
      error: null,
      callId: `${worker.toString(16).padStart(8, '0')}-0000-4000-8000-${index.toString(16).padStart(12, '0')}`,
      host: `worker-${worker}`,
      pid: 1000 + worker,
      endpoint: { provider: 'primary', baseUrl: 'https://api.primary.example', thinking: false },
      outcome: 'ok',
      degradation: false,
    });
  });
}

const machine = machineInfo();
const load = () =>
  loadavg()
    .map((value) => value.toFixed(2))
    .join(' ');
console.log(
  `machine: ${machine.cpu}, ${machine.cores} cores, ${machine.memoryGb} GB, Node ${machine.node}; load at start ${load()}`,
);
const folder = values.keep ?? mkdtempSync(join(tmpdir(), 'bench-fleet-'));
try {
  mkdirSync(folder, { recursive: true });
  const paths = Array.from({ length: journals }, (_, index) => join(folder, `worker-${index + 1}.jsonl`));
  for (const [index, path] of paths.entries())
    if (!existsSync(path) || statSync(path).size === 0) await writeJournal(path, index + 1, lines);
  if (values['write-only']) process.exit(0);
  const size = paths.reduce((sum, path) => sum + statSync(path).size, 0) / 2 ** 30;
  const rows: string[] = [];
  const counts = [...new Set([1, Math.min(4, journals), journals])];
  for (const count of counts) {
    const run = await measure(['report', '--json', ...paths.slice(0, count)]);
    const total = count * lines;
    rows.push(
      `| ${count} x ${lines.toLocaleString('en-US')} | ${run.seconds.toFixed(1)} s | ${((run.seconds * 1e6) / total).toFixed(2)} s | ${run.peakRssMiB.toFixed(0)} MiB | ${run.peakRssMiB <= BOUND_MIB ? `within ${BOUND_MIB} MiB` : `OVER ${BOUND_MIB} MiB`}, exit ${run.code} |`,
    );
  }
  const capped = await measure(['report', '--json', ...paths], undefined, ['--max-old-space-size=160']);
  rows.push(
    `| ${journals} x ${lines.toLocaleString('en-US')}, V8 heap capped at 160 MiB | ${capped.seconds.toFixed(1)} s | ${((capped.seconds * 1e6) / (journals * lines)).toFixed(2)} s | ${capped.peakRssMiB.toFixed(0)} MiB | exit ${capped.code} |`,
  );
  console.log(
    `\n${journals} journals, ${size.toFixed(1)} GiB; load at the end ${load()}\n\n| journals x lines | wall time | per million lines | peak RSS | note |\n|---|---|---|---|---|\n${rows.join('\n')}\n`,
  );
} finally {
  if (values.keep === undefined) rmSync(folder, { recursive: true, force: true });
}
