// Cold-import check (issue 6): a fresh Node process imports each published
// package by name from a consumer (fixtures/consumer, so package.json `exports`
// is what resolves), with a resolve hook logging every module loaded. Importing
// @switchboard/prices must load its own dist file and nothing else: no other
// module, not even a node: built-in. The other packages' module counts are
// printed, and @switchboard/scripted must not load `openai` or `zod`.
//
// Usage: node scripts/check-cold-import.mjs
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const consumer = `${root}fixtures/consumer`;
const hooks = new URL('./module-graph-hooks.mjs', import.meta.url).href;

/** The URLs a cold `import(name)` resolves, in order, without duplicates. */
export function coldImport(name) {
  const folder = mkdtempSync(join(tmpdir(), 'switchboard-cold-import-'));
  const logFile = join(folder, 'modules.log');
  try {
    const program = [
      `import { register } from 'node:module';`,
      `register(${JSON.stringify(hooks)}, { data: { logFile: ${JSON.stringify(logFile)} } });`,
      `await import(${JSON.stringify(name)});`,
    ].join('\n');
    // The program runs as a module at the consumer's folder, so the bare name
    // resolves through fixtures/consumer/node_modules like any dependent's would.
    const run = spawnSync(process.execPath, ['--input-type=module', '-e', program], {
      cwd: consumer,
      encoding: 'utf8',
    });
    if (run.status !== 0) throw new Error(`importing ${name} failed:\n${run.stderr}`);
    const urls = readFileSync(logFile, 'utf8').split('\n').filter(Boolean);
    return [...new Set(urls)];
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

const RULES = {
  '@switchboard/prices': (urls) => {
    const own = pathToFileURL(`${root}packages/prices/dist/index.js`).href;
    const others = urls.filter((url) => url !== own);
    if (!urls.includes(own)) return [`it did not load ${own}`];
    return others.length === 0 ? [] : [`it also loaded ${others.join(', ')}`];
  },
  '@switchboard/adapter': () => [],
  '@switchboard/scripted': (urls) =>
    ['openai', 'zod']
      .filter((name) => urls.some((url) => url.includes(`/node_modules/${name}/`)))
      .map((name) => `it loaded ${name}`),
  '@switchboard/endpoint': () => [],
  '@switchboard/emulator': () => [],
};

/** Runs every cold import; prints a table; returns false when a rule is broken. */
export function checkColdImports() {
  let ok = true;
  console.log('| cold import | modules | node: built-ins | result |');
  console.log('|---|---:|---:|---|');
  for (const [name, rule] of Object.entries(RULES)) {
    const urls = coldImport(name);
    const problems = rule(urls);
    if (problems.length > 0) ok = false;
    const builtins = urls.filter((url) => url.startsWith('node:')).length;
    const result = problems.length === 0 ? 'ok' : `FAIL: ${problems.join('; ')}`;
    console.log(`| ${name} | ${urls.length - builtins} | ${builtins} | ${result} |`);
  }
  return ok;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  if (!checkColdImports()) {
    console.error('cold imports: FAILED');
    process.exitCode = 1;
  }
}
