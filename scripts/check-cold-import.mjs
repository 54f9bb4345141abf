// Cold-import check (issue 6): a fresh Node process loads each published
// package by name, once with `import` and once with `require` (issue 14), from
// a temporary consumer whose node_modules links every published workspace
// package, so package.json `exports` is what resolves. It records every module
// loaded: `import` through a resolve hook, `require` through Module._load.
// @switchboard/prices must load its own dist file and nothing else, not even a
// node: built-in; @switchboard/scripted and @switchboard/telemetry must not load
// the adapter, `openai` or `zod`; @switchboard/endpoint must not load the TOML
// parser, nor @switchboard/budget ioredis, until used; every package's module
// count and cold time are printed.
//
// Usage: node scripts/check-cold-import.mjs
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { libraryPackages, publishedPackages, root } from './workspace-packages.mjs';

const hooks = new URL('./module-graph-hooks.mjs', import.meta.url).href;

const IMPORT_PROGRAM = (name, logFile) =>
  [
    `import { register } from 'node:module';`,
    `register(${JSON.stringify(hooks)}, { data: { logFile: ${JSON.stringify(logFile)} } });`,
    `await import(${JSON.stringify(name)});`,
  ].join('\n');

// Module._load sees every require(), built-ins included; loaded files are the require cache.
const REQUIRE_PROGRAM = (name, logFile) =>
  [
    `const Module = require('node:module');`,
    `const { isBuiltin } = Module;`,
    `const builtins = [];`,
    `const load = Module._load;`,
    `Module._load = function (request, ...rest) {`,
    `  if (isBuiltin(request)) builtins.push(request.startsWith('node:') ? request : 'node:' + request);`,
    `  return load.call(this, request, ...rest);`,
    `};`,
    `require(${JSON.stringify(name)});`,
    `Module._load = load;`,
    `const files = Object.keys(require.cache).map((file) => require('node:url').pathToFileURL(file).href);`,
    `require('node:fs').writeFileSync(${JSON.stringify(logFile)}, [...files, ...builtins].join('\\n'));`,
  ].join('\n');

/** A consumer folder whose node_modules links every published workspace package. */
function linkedConsumer() {
  const folder = mkdtempSync(join(tmpdir(), 'switchboard-cold-import-'));
  for (const pkg of publishedPackages()) {
    const link = join(folder, 'node_modules', pkg.name);
    mkdirSync(dirname(link), { recursive: true });
    symlinkSync(pkg.dir, link, 'dir');
  }
  return folder;
}

/** The URLs a cold `import(name)` or `require(name)` loads, in order, without duplicates. */
export function coldLoad(consumer, name, how) {
  const logFile = join(consumer, `${how}.log`);
  const program = how === 'import' ? IMPORT_PROGRAM(name, logFile) : REQUIRE_PROGRAM(name, logFile);
  const run = spawnSync(
    process.execPath,
    [`--input-type=${how === 'import' ? 'module' : 'commonjs'}`, '-e', program],
    { cwd: consumer, encoding: 'utf8' },
  );
  if (run.status !== 0) throw new Error(`${how} ${name} failed:\n${run.stderr}`);
  const urls = readFileSync(logFile, 'utf8').split('\n').filter(Boolean);
  rmSync(logFile);
  return [...new Set(urls)];
}

/** The problems of one cold load; packages without a rule only have their counts printed. */
const RULES = {
  '@switchboard/prices': (urls, how) => {
    const own = pathToFileURL(`${root}packages/prices/dist/index.${how === 'import' ? 'js' : 'cjs'}`).href;
    const others = urls.filter((url) => url !== own);
    if (!urls.includes(own)) return [`it did not load ${own}`];
    return others.length === 0 ? [] : [`it also loaded ${others.join(', ')}`];
  },
  '@switchboard/scripted': (urls) => loaded(urls, ['openai', 'zod', '@switchboard/adapter']),
  // The adapter is a type-only (optional peer) dependency of both.
  '@switchboard/telemetry': (urls) => loaded(urls, ['openai', 'zod', '@switchboard/adapter']),
  // The TOML parser is loaded on the first TOML file, never on import.
  '@switchboard/endpoint': (urls) => loaded(urls, ['smol-toml']),
  // ioredis is loaded when a Redis store is made, never for the memory store.
  '@switchboard/budget': (urls) => loaded(urls, ['ioredis']),
};

/** The packages of `names` that a cold load's URLs include (by node_modules path or workspace folder). */
function loaded(urls, names) {
  const folder = (name) => `${root}packages/${name.replace('@switchboard/', '')}/`;
  return names
    .filter((name) =>
      urls.some(
        (url) =>
          url.includes(`/node_modules/${name}/`) ||
          (name.startsWith('@switchboard/') && url.startsWith(pathToFileURL(folder(name)).href)),
      ),
    )
    .map((name) => `it loaded ${name}`);
}

/** Runs every cold load; prints a table; returns false when a rule is broken or a load fails. */
export function checkColdImports() {
  let ok = true;
  const consumer = linkedConsumer();
  try {
    console.log('| cold load | modules | node: built-ins | result |');
    console.log('|---|---:|---:|---|');
    for (const { name } of libraryPackages()) {
      for (const how of ['import', 'require']) {
        let urls = [];
        let problems;
        try {
          urls = coldLoad(consumer, name, how);
          problems = RULES[name]?.(urls, how) ?? [];
        } catch (error) {
          problems = [error.message];
        }
        if (problems.length > 0) ok = false;
        const builtins = urls.filter((url) => url.startsWith('node:')).length;
        const result = problems.length === 0 ? 'ok' : `FAIL: ${problems.join('; ')}`;
        console.log(`| ${how} ${name} | ${urls.length - builtins} | ${builtins} | ${result} |`);
      }
    }
  } finally {
    rmSync(consumer, { recursive: true, force: true });
  }
  return ok;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  if (!checkColdImports()) {
    console.error('cold imports: FAILED');
    process.exitCode = 1;
  }
}
