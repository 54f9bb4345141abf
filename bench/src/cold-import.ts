// Cold import time of every published library package: each import (ESM) and
// require (CommonJS) runs in a fresh Node process, timed inside it around the
// load alone (Node's own start-up excluded), several times; the median is printed
// as a markdown table. Not part of the tests.
//
// Usage (from the root): pnpm --filter @switchboard/bench bench:cold-import [--runs N]
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { libraryPackages } from '../../scripts/workspace-packages.mjs';

const { values } = parseArgs({
  args: process.argv.slice(2).filter((argument) => argument !== '--'),
  options: { runs: { type: 'string', default: '7' } },
});
const runs = Number(values.runs);
if (!Number.isInteger(runs) || runs < 1) throw new RangeError('--runs must be a positive integer');

type Entry = { import?: { default?: string }; require?: { default?: string } };

function timeOnce(file: string, how: 'import' | 'require'): number {
  const program =
    how === 'import'
      ? `const t = performance.now(); await import(${JSON.stringify(file)}); console.log(performance.now() - t);`
      : `const t = performance.now(); require(${JSON.stringify(file)}); console.log(performance.now() - t);`;
  const run = spawnSync(
    process.execPath,
    [`--input-type=${how === 'import' ? 'module' : 'commonjs'}`, '-e', program],
    { encoding: 'utf8' },
  );
  if (run.status !== 0) throw new Error(`${how} ${file} failed:\n${run.stderr}`);
  return Number(run.stdout.trim());
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

console.log(`cold import, median of ${runs} fresh processes (Node ${process.version})\n`);
console.log('| package | import (ms) | require (ms) |');
console.log('|---|---:|---:|');
for (const pkg of libraryPackages()) {
  const entry = (pkg.manifest.exports as Record<string, Entry>)['.'];
  const esm = join(pkg.dir, entry?.import?.default ?? 'dist/index.js');
  const cjs = join(pkg.dir, entry?.require?.default ?? 'dist/index.cjs');
  const times = (file: string, how: 'import' | 'require') =>
    median(Array.from({ length: runs }, () => timeOnce(file, how))).toFixed(1);
  console.log(`| ${pkg.name} | ${times(esm, 'import')} | ${times(cjs, 'require')} |`);
}
