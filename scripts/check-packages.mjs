// The packaging checks CI runs after the build (issues 6, 9 and 14) that are not
// per-package turbo tasks (`publint` and `attw` are: `turbo run publint attw`
// caches and parallelises them; `pnpm run check:packages` runs both): size
// budgets (size-limit, .size-limit.mjs), the cold import and require of every
// published package, the workspace conventions below, no import circle in any
// package's src (scripts/check-import-cycles.mjs), every exported class and
// function keeping its name in both builds (scripts/check-export-names.mjs), knip, the consumer fixture
// (ESM with moduleResolution bundler and node16, and a CommonJS consumer that is
// run), the OpenTelemetry consumer (the real @opentelemetry/api with the packed
// tarballs, ESM and CommonJS), the ioredis consumer (RedisBudgetStore given clients of
// ioredis 5 and 6, scripts/check-ioredis-consumer.mjs), the packed tarballs (no numbered citations, README
// links inside, and empty projects installed from them: npx @switchboard/cli,
// loadConfig, @switchboard/scripted without openai), the TypeDoc API reference (warnings are errors), the independent-release
// dry run of changesets, and biome on the root files that no package's `lint`
// covers. The package list comes from the workspace (scripts/workspace-packages.mjs).
// Expects the packages to be built (`pnpm run check:packages` builds first).
//
// Usage: node scripts/check-packages.mjs [name ...]   (names: see CHECKS; default all)
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { publishedPackages, root } from './workspace-packages.mjs';

const bin = (name) => `${root}node_modules/.bin/${name}`;

/** Runs a command; resolves with its exit code and combined output (never rejects). */
function run(command, args, options = {}) {
  return new Promise((resolve) => {
    const child = spawn(command, args, {
      cwd: root,
      env: { ...process.env, FORCE_COLOR: '0', NO_COLOR: '1' },
      ...options,
    });
    let output = '';
    const collect = (chunk) => {
      output += chunk;
    };
    child.stdout.on('data', collect);
    child.stderr.on('data', collect);
    child.on('error', (error) => resolve({ ok: false, output: `${output}${error.message}\n` }));
    child.on('close', (code) => resolve({ ok: code === 0, output }));
  });
}

/** A check whose output is worth reading even when it passes. */
const script = (file) => async () => ({
  ...(await run(process.execPath, [`${root}scripts/${file}`])),
  show: true,
});

// What every published package carries for the tools to find it: the turbo
// tasks are package scripts, and a package without them would be skipped silently.
const REQUIRED_SCRIPTS = ['build', 'typecheck', 'lint', 'test', 'publint', 'attw'];
const LICENSE_HEADINGS = { MIT: 'MIT License' };

/** Each published package has the required scripts and a LICENSE matching its `license` field. */
async function checkConventions() {
  const problems = [];
  for (const { folder, manifest } of publishedPackages()) {
    const missing = REQUIRED_SCRIPTS.filter((name) => !manifest.scripts?.[name]);
    if (missing.length > 0) problems.push(`${folder}/package.json: no script ${missing.join(', ')}`);
    const heading = LICENSE_HEADINGS[manifest.license];
    const license = join(root, folder, 'LICENSE');
    if (heading === undefined) {
      problems.push(`${folder}/package.json: license '${manifest.license}' has no known LICENSE text`);
    } else if (!existsSync(license) || !readFileSync(license, 'utf8').startsWith(heading)) {
      problems.push(`${folder}/LICENSE: missing or not the ${manifest.license} text its license field names`);
    } else if (!manifest.files?.includes('LICENSE')) {
      problems.push(`${folder}/package.json: "files" does not list LICENSE`);
    }
  }
  const count = publishedPackages().length;
  if (problems.length > 0) problems.push('(node scripts/conform-package.mjs <folder> adds them)');
  return {
    ok: problems.length === 0,
    output:
      problems.length > 0
        ? `${problems.join('\n')}\n`
        : `${count} published packages: scripts and LICENSE ok\n`,
    show: true,
  };
}

const CHECKS = {
  size: async () => ({ ...(await run(bin('size-limit'), [])), show: true }),
  'cold-import': script('check-cold-import.mjs'),
  conventions: checkConventions,
  'import-cycles': script('check-import-cycles.mjs'),
  'export-names': script('check-export-names.mjs'),
  knip: () => run(bin('knip'), ['--no-progress']),
  consumer: script('check-consumer.mjs'),
  'otel-consumer': script('check-otel-consumer.mjs'),
  'ioredis-consumer': script('check-ioredis-consumer.mjs'),
  tarballs: script('check-tarballs.mjs'),
  typedoc: () => run(bin('typedoc'), ['--logLevel', 'Warn']),
  changesets: script('check-changesets.mjs'),
  'price-changelog': script('check-price-changelog.mjs'),
  // The root files no package's `lint` covers.
  biome: () =>
    run(bin('biome'), [
      'check',
      'scripts',
      'fixtures/otel-consumer',
      'knip.jsonc',
      'typedoc.config.mjs',
      'size-budgets.json',
      '.size-limit.mjs',
      'vitest.shared.ts',
      'vitest.config.ts',
      'turbo.json',
      'tsup.config.base.ts',
    ]),
};

async function main() {
  const wanted = process.argv.slice(2);
  const unknown = wanted.filter((name) => !(name in CHECKS));
  if (unknown.length > 0) {
    console.error(`unknown check(s): ${unknown.join(', ')}; known: ${Object.keys(CHECKS).join(', ')}`);
    process.exitCode = 2;
    return;
  }
  const names = wanted.length > 0 ? wanted : Object.keys(CHECKS);
  const results = new Map();
  let next = 0;
  const worker = async () => {
    while (next < names.length) {
      const name = names[next++];
      const started = performance.now();
      const result = await CHECKS[name]().catch((error) => ({
        ok: false,
        output: `${error.stack ?? error}\n`,
      }));
      results.set(name, { ...result, seconds: (performance.now() - started) / 1000 });
    }
  };
  // Most checks spawn a process of their own; two or three at a time suits a small CI machine.
  const parallel = Math.max(2, Math.min(3, availableParallelism()));
  await Promise.all(Array.from({ length: parallel }, worker));

  const failed = [];
  for (const name of names) {
    const result = results.get(name);
    console.log(`== ${name}: ${result.ok ? 'ok' : 'FAILED'} (${result.seconds.toFixed(1)} s)`);
    if (!result.ok || result.show)
      process.stdout.write(result.output.trimEnd() ? `${result.output.trimEnd()}\n` : '');
    if (!result.ok) failed.push(name);
  }
  if (failed.length > 0) {
    console.log(`\npackage checks failed: ${failed.join(', ')}`);
    process.exitCode = 1;
  } else {
    console.log(`\npackage checks: all ${names.length} passed`);
  }
}

await main();
