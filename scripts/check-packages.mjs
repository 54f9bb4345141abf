// The packaging checks CI runs after the build (issue 6), a few at a time:
// size budgets, the cold import of @switchboard/prices, publint and
// "are the types wrong" on every published package, knip, the consumer
// fixture (moduleResolution bundler and node16), the TypeDoc API reference
// (warnings are errors), the independent-release dry run of changesets, and
// biome on the root files that no package's `lint` covers.
// Expects the packages to be built (`pnpm run check:packages` builds first).
//
// Usage: node scripts/check-packages.mjs [name ...]   (names: see CHECKS; default all)
import { spawn } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { publint } from 'publint';
import { formatMessage } from 'publint/utils';

const root = fileURLToPath(new URL('..', import.meta.url));
const PUBLISHED = ['prices', 'adapter', 'scripted', 'endpoint', 'emulator', 'telemetry'];
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

/** publint with `--strict` semantics: warnings fail too; suggestions are printed. */
async function checkPublint(name) {
  const { messages, pkg } = await publint({
    pkgDir: `${root}packages/${name}`,
    level: 'suggestion',
    pack: 'pnpm',
  });
  const lines = messages.map(
    (message) => `${message.type}: ${formatMessage(message, pkg, { color: false })}`,
  );
  const ok = messages.every((message) => message.type === 'suggestion');
  return { ok, output: lines.length > 0 ? `${lines.join('\n')}\n` : '', show: lines.length > 0 };
}

/** ESM-only packages: node10 and require() from CommonJS are not goals (`--profile esm-only`). */
async function checkTypes(name) {
  return run(bin('attw'), [
    '--pack',
    `packages/${name}`,
    '--profile',
    'esm-only',
    '--format',
    'ascii',
    '--no-color',
    '--no-emoji',
    '--no-summary',
  ]);
}

const CHECKS = {
  size: script('check-size.mjs'),
  'cold-import': script('check-cold-import.mjs'),
  ...Object.fromEntries(PUBLISHED.map((name) => [`publint:${name}`, () => checkPublint(name)])),
  ...Object.fromEntries(PUBLISHED.map((name) => [`attw:${name}`, () => checkTypes(name)])),
  knip: () => run(bin('knip'), ['--no-progress']),
  consumer: script('check-consumer.mjs'),
  typedoc: () => run(bin('typedoc'), ['--logLevel', 'Warn']),
  changesets: script('check-changesets.mjs'),
  // The root files no package's `lint` covers.
  biome: () => run(bin('biome'), ['check', 'scripts', 'knip.jsonc', 'typedoc.json', 'size-budgets.json']),
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
