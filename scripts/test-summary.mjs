// The test total (issue 9): sums vitest's JSON reports (`test-results.json`,
// written by each workspace package's `test` script) into one last line,
// `N passed, M failed`, after one line per package.
// `pnpm test` runs it with --run: it removes old reports, runs
// `turbo run test --continue --concurrency=100%` (extra arguments go to turbo), then sums. `.ci/run`
// runs it without --run after `pnpm test`, passing turbo's exit status, and
// prefixes the line with `tests: `. A package whose report is missing (its
// suite or its build did not finish; unless the run was filtered) or a suite
// that failed to load counts as a failure. Exits 1 when anything failed or
// nothing passed.
//
// Usage: node scripts/test-summary.mjs [--run [turbo args...]] [--status <exit code>]
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { root, workspacePackages } from './workspace-packages.mjs';

const REPORT = 'test-results.json';

/** The workspace packages that have tests: those with a `test` script. */
function testedPackages() {
  return workspacePackages().filter((pkg) => pkg.manifest.scripts?.test);
}

/** Runs every package's tests through turbo; returns turbo's exit status. */
function runTests(turboArgs) {
  for (const pkg of testedPackages()) rmSync(join(pkg.dir, REPORT), { force: true });
  const turbo = join(root, 'node_modules/.bin/turbo');
  // One suite per core at a time: each vitest already runs its own workers, and suites with
  // real servers and processes time out when a small machine runs all of them at once.
  const run = spawnSync(turbo, ['run', 'test', '--continue', '--concurrency=100%', ...turboArgs], {
    cwd: root,
    stdio: 'inherit',
  });
  return run.status ?? 1;
}

const MESSAGE_CHARS = 400;

/** A suite that failed to load: failed, with no test run. */
function isBroken(suite) {
  return suite.status === 'failed' && (suite.assertionResults ?? []).length === 0;
}

/** The first line of a failure's message, without colour codes, cut to a readable length. */
function firstLine(message) {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: vitest's messages carry ANSI colour codes
  const plain = String(message ?? '').replace(/\u001b\[[0-9;]*m/g, '');
  const line = (plain.split('\n').find((part) => part.trim() !== '') ?? '').trim();
  return line.length > MESSAGE_CHARS ? `${line.slice(0, MESSAGE_CHARS)}…` : line;
}

/**
 * One line per failed test (and per suite that failed to load), naming its file and the first
 * line of its error: a CI log that keeps only its end still says what failed.
 */
function failureLines(json, dir) {
  const lines = [];
  for (const suite of json.testResults ?? []) {
    const file = relative(dir, suite.name ?? '');
    if (isBroken(suite)) lines.push(`  failed to run: ${file}: ${firstLine(suite.message)}`);
    for (const result of suite.assertionResults ?? []) {
      if (result.status !== 'failed') continue;
      lines.push(
        `  failed: ${file} > ${result.fullName ?? result.title}: ${firstLine(result.failureMessages?.[0])}`,
      );
    }
  }
  return lines;
}

/**
 * Sums the reports; prints one line per package; returns the totals. A missing
 * report counts as a failure unless the run was filtered (`pnpm test --filter …`),
 * where turbo's exit status speaks for the packages it ran.
 */
export function summarize({ filtered = false } = {}) {
  let passed = 0;
  let failed = 0;
  for (const pkg of testedPackages()) {
    const report = join(pkg.dir, REPORT);
    if (!existsSync(report)) {
      if (filtered) continue;
      console.log(`${pkg.folder}: no test report (vitest did not finish)`);
      failed += 1;
      continue;
    }
    const json = JSON.parse(readFileSync(report, 'utf8'));
    // A suite that fails to load counts as a failure even when it ran no test.
    const brokenSuites = (json.testResults ?? []).filter(isBroken).length;
    const broken = brokenSuites > 0 ? `, ${brokenSuites} suites failed to run` : '';
    console.log(`${pkg.folder}: ${json.numPassedTests} passed, ${json.numFailedTests} failed${broken}`);
    for (const line of failureLines(json, pkg.dir)) console.log(line);
    passed += json.numPassedTests;
    failed += json.numFailedTests + brokenSuites;
  }
  return { passed, failed };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const statusAt = args.indexOf('--status');
  let status = statusAt === -1 ? 0 : Number(args.splice(statusAt, 2)[1]);
  const turboArgs = args[0] === '--run' ? args.slice(1) : [];
  if (args[0] === '--run') status = runTests(turboArgs);
  const totals = summarize({ filtered: turboArgs.some((arg) => arg.startsWith('--filter')) });
  if (status !== 0 && totals.failed === 0) {
    console.log(`the test command exited ${status}`);
    totals.failed = 1;
  }
  console.log(`${totals.passed} passed, ${totals.failed} failed`);
  process.exitCode = totals.failed === 0 && totals.passed > 0 ? 0 : 1;
}
