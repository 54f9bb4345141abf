// Size budgets of the published packages (issue 6), measured the way size-limit
// does it: each package's built entry bundled with its runtime dependencies by
// esbuild (bundle, minify, tree-shake; Node built-ins stay external), then gzip
// at level 9. Budgets live in size-budgets.json; `--update` re-measures and sets
// every "measured + 10%" budget to the current size plus 10%.
//
// Usage: node scripts/check-size.mjs [--update] [--json]
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';

const root = fileURLToPath(new URL('..', import.meta.url));
const budgetsFile = `${root}size-budgets.json`;
const DEPENDENCY_FIELDS = ['dependencies', 'peerDependencies', 'optionalDependencies'];

/**
 * Bundles one package's built entry and measures it.
 * @param {string} folder the package folder, e.g. `packages/prices`
 */
export async function measurePackage(folder) {
  const manifest = JSON.parse(readFileSync(`${root}${folder}/package.json`, 'utf8'));
  const entry = `${root}${folder}/${manifest.exports['.'].import}`;
  const result = await build({
    entryPoints: [entry],
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    minify: true,
    treeShaking: true,
    write: false,
    metafile: true,
    outfile: 'bundle.js',
    logLevel: 'silent',
  });
  const code = result.outputFiles[0].contents;
  const inputs = Object.keys(result.metafile.inputs);
  return {
    name: manifest.name,
    manifest,
    minifiedBytes: code.byteLength,
    gzipBytes: gzipSync(code, { level: 9 }).byteLength,
    bundledPackages: [
      ...new Set(inputs.map(packageOfInput).filter((name) => name !== null && name !== manifest.name)),
    ].sort(),
    inputs,
  };
}

/** The package a bundled input file comes from (an npm package or one of ours), or null. */
function packageOfInput(input) {
  const at = input.lastIndexOf('node_modules/');
  if (at === -1) {
    const workspace = /(?:^|\/)packages\/([^/]+)\/dist\//.exec(input);
    return workspace ? `@switchboard/${workspace[1]}` : null;
  }
  const parts = input.slice(at + 'node_modules/'.length).split('/');
  return parts[0]?.startsWith('@') ? `${parts[0]}/${parts[1]}` : (parts[0] ?? null);
}

/** Checks one measured package against its budget; returns the problems found. */
function checkBudget(measured, budget) {
  const problems = [];
  if (measured.gzipBytes > budget.maxGzipBytes) {
    problems.push(`${measured.gzipBytes} B min+gzip is over its budget of ${budget.maxGzipBytes} B`);
  }
  for (const forbidden of budget.mustNotBundle ?? []) {
    if (measured.bundledPackages.includes(forbidden)) problems.push(`the bundle includes ${forbidden}`);
  }
  if (budget.noDependencies) {
    const declared = DEPENDENCY_FIELDS.filter(
      (field) => Object.keys(measured.manifest[field] ?? {}).length > 0,
    );
    if (declared.length > 0) problems.push(`package.json declares ${declared.join(', ')}; it must have none`);
    const foreign = measured.inputs.filter(
      (input) => !input.includes(`${measured.name.split('/')[1]}/dist/`),
    );
    if (foreign.length > 0) problems.push(`the bundle pulls in other files: ${foreign.join(', ')}`);
  }
  return problems;
}

/** Measures every budgeted package; prints a table; returns false when a budget is broken. */
export async function checkSize({ update = false, json = false } = {}) {
  const config = JSON.parse(readFileSync(budgetsFile, 'utf8'));
  const rows = [];
  let ok = true;
  for (const [name, budget] of Object.entries(config.packages)) {
    const measured = await measurePackage(budget.folder);
    if (measured.name !== name)
      throw new Error(`${budget.folder}/package.json is ${measured.name}, expected ${name}`);
    if (update && budget.rule === 'measured + 10%') {
      budget.measuredGzipBytes = measured.gzipBytes;
      budget.maxGzipBytes = Math.ceil(measured.gzipBytes * 1.1);
    }
    const problems = checkBudget(measured, budget);
    if (problems.length > 0) ok = false;
    rows.push({
      name,
      minifiedBytes: measured.minifiedBytes,
      gzipBytes: measured.gzipBytes,
      maxGzipBytes: budget.maxGzipBytes,
      bundledPackages: measured.bundledPackages,
      problems,
    });
  }
  if (update) {
    writeFileSync(budgetsFile, `${JSON.stringify(config, null, 2)}\n`);
    spawnSync(`${root}node_modules/.bin/biome`, ['format', '--write', budgetsFile], { stdio: 'ignore' });
  }
  if (json) {
    console.log(JSON.stringify(rows, null, 2));
  } else {
    console.log('| package | minified | min+gzip | budget | bundled packages | result |');
    console.log('|---|---:|---:|---:|---|---|');
    for (const row of rows) {
      const result = row.problems.length === 0 ? 'ok' : `FAIL: ${row.problems.join('; ')}`;
      const bundled = row.bundledPackages.join(', ') || 'none';
      console.log(
        `| ${row.name} | ${row.minifiedBytes} B | ${row.gzipBytes} B | ${row.maxGzipBytes} B | ${bundled} | ${result} |`,
      );
    }
  }
  return ok;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const ok = await checkSize({
    update: process.argv.includes('--update'),
    json: process.argv.includes('--json'),
  });
  if (!ok) {
    console.error('size budgets: FAILED (see size-budgets.json)');
    process.exitCode = 1;
  }
}
