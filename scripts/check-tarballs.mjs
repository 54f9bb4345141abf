// Tarball check: every published package is packed as it would be published
// (`pnpm pack`, so `workspace:` ranges become versions), then:
//
// Packed by scripts/pack.mjs (what `pnpm run pack` writes).
//
// 1. No packed file (README, .d.ts doc comments, dist, source maps) mentions a
//    numbered "spec N", "issue N" or "section N" a user cannot read, and no README
//    links to a file outside its own tarball.
// 2. Empty projects are installed with npm from those tarballs alone (every
//    @switchboard/* dependency overridden to its tarball) and used as a new user would:
//    - `npx @switchboard/cli demo --journal run.jsonl`, then
//      `npx @switchboard/cli report run.jsonl` (text and --json);
//    - loadConfig from ESM (./switchboard.toml by default) and CommonJS
//      (fixtures/tarball/load-config.*), and a configuration typo written in
//      code that must not compile, type-checked as ESM and CommonJS
//      (fixtures/tarball/config-typo.ts);
//    - @switchboard/scripted installed alone: neither @switchboard/adapter nor
//      openai lands in node_modules, and it runs from ESM and CommonJS
//      (fixtures/tarball/scripted.*).
// Dependencies from the registry (openai, zod, ...) are installed by npm as usual.
//
// Usage: node scripts/check-tarballs.mjs   (expects the packages to be built)
import { spawnSync } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { packPublished } from './pack.mjs';
import { root } from './workspace-packages.mjs';

const fixtures = join(root, 'fixtures/tarball');
/** A numbered citation of a document the package's users cannot read. */
const CITATION = /\b(?:spec|issues?|sections?)\s+§?\d/i;

function run(command, args, options = {}) {
  const result = spawnSync(command, args, {
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1', NPM_CONFIG_UPDATE_NOTIFIER: 'false', NPM_CONFIG_FUND: 'false' },
    timeout: 300_000,
    ...options,
  });
  const output = `${result.stdout ?? ''}${result.stderr ?? ''}`;
  if (result.status !== 0) {
    throw new Error(
      `${command} ${args.join(' ')} (in ${options.cwd ?? root}) exited ${result.status}:\n${output}`,
    );
  }
  return result.stdout;
}

function filesUnder(folder) {
  return readdirSync(folder, { recursive: true })
    .map((name) => join(folder, name))
    .filter((path) => statSync(path).isFile());
}

/** Citations in any packed file, and README links to files the tarball lacks. */
function contentProblems(name, tarball, scratch) {
  const folder = join(scratch, name.replace('/', '+'));
  mkdirSync(folder, { recursive: true });
  run('tar', ['-xzf', tarball, '-C', folder]);
  const packageRoot = join(folder, 'package');
  const problems = [];
  for (const file of filesUnder(packageRoot)) {
    const lines = readFileSync(file, 'utf8').split('\n');
    lines.forEach((line, index) => {
      const found = CITATION.exec(line);
      if (found === null) return;
      const excerpt = line.slice(Math.max(0, found.index - 40), found.index + 40).trim();
      problems.push(`${name}: ${relative(packageRoot, file)}:${index + 1} cites "${found[0]}": …${excerpt}…`);
    });
  }
  const readme = join(packageRoot, 'README.md');
  if (!existsSync(readme)) problems.push(`${name}: no README.md in the tarball`);
  else {
    for (const [, target] of readFileSync(readme, 'utf8').matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^(?:[a-z]+:|#)/i.test(target)) continue;
      const path = join(packageRoot, target.split('#')[0] ?? '');
      if (!existsSync(path)) {
        problems.push(
          `${name}: README.md links to ${target}, which is not in the tarball (link to the repository)`,
        );
      }
    }
  }
  return problems;
}

/** An empty project depending on `wanted`, every @switchboard/* package overridden to its tarball; installed. */
function installProject(scratch, label, wanted, tarballs) {
  const folder = join(scratch, label);
  mkdirSync(folder, { recursive: true });
  const file = (name) => `file:${tarballs.get(name)}`;
  const overrides = Object.fromEntries(
    [...tarballs.keys()].map((name) => [name, wanted.includes(name) ? `$${name}` : file(name)]),
  );
  const manifest = {
    name: `switchboard-tarball-${label}`,
    private: true,
    dependencies: Object.fromEntries(wanted.map((name) => [name, file(name)])),
    overrides,
  };
  writeFileSync(join(folder, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  run('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: folder });
  return folder;
}

function checkCli(scratch, tarballs) {
  const project = installProject(scratch, 'cli', ['@switchboard/cli'], tarballs);
  const npx = (...args) => run('npx', ['--no', '@switchboard/cli', ...args], { cwd: project });
  npx('demo', '--journal', 'run.jsonl');
  const text = npx('report', 'run.jsonl');
  if (!text.includes('Totals')) throw new Error(`report printed no totals:\n${text}`);
  const figures = JSON.parse(npx('report', 'run.jsonl', '--json'));
  const calls = figures.totals?.calls;
  if (!(calls > 0)) throw new Error(`report --json counted ${calls} calls`);
  return `npx @switchboard/cli demo, then report run.jsonl: ${calls} calls reported`;
}

/** Type-checks `files` in `project` against its installed packages; returns the diagnostics as text. */
function typeErrors(project, files) {
  const program = ts.createProgram({
    rootNames: files.map((file) => join(project, file)),
    options: {
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      strict: true,
      noEmit: true,
      // The project installs no @types/node; the packages' own declarations still resolve.
      types: [],
      skipLibCheck: true,
    },
  });
  return ts.formatDiagnostics(ts.getPreEmitDiagnostics(program), {
    getCanonicalFileName: (name) => name,
    getCurrentDirectory: () => project,
    getNewLine: () => '\n',
  });
}

function checkLoadConfig(scratch, tarballs) {
  const project = installProject(scratch, 'config', ['@switchboard/endpoint'], tarballs);
  for (const name of ['load-config.mjs', 'load-config.cjs', 'switchboard.toml', 'config-typo.ts']) {
    cpSync(join(fixtures, name), join(project, name));
  }
  cpSync(join(fixtures, 'config-typo.ts'), join(project, 'config-typo.cts'));
  const errors = typeErrors(project, ['config-typo.ts', 'config-typo.cts']);
  if (errors !== '') throw new Error(`the config typo check did not compile as expected:\n${errors}`);
  const runs = ['load-config.mjs', 'load-config.cjs'].map((script) =>
    run(process.execPath, [script], { cwd: project }).trim(),
  );
  return [...runs, 'typescript (ESM and CommonJS): a config typo does not compile'].join('\n  ');
}

function checkScriptedAlone(scratch, tarballs) {
  const project = installProject(scratch, 'scripted', ['@switchboard/scripted'], tarballs);
  const present = ['openai', '@switchboard/adapter', 'zod'].filter((name) =>
    existsSync(join(project, 'node_modules', name)),
  );
  if (present.length > 0)
    throw new Error(`installing @switchboard/scripted also installed ${present.join(', ')}`);
  for (const name of ['scripted.mjs', 'scripted.cjs']) cpSync(join(fixtures, name), join(project, name));
  return ['scripted.mjs', 'scripted.cjs']
    .map((script) => run(process.execPath, [script], { cwd: project }).trim())
    .join('\n  ');
}

/** Runs every part; prints what each found; returns false on a problem. */
export function checkTarballs() {
  const scratch = mkdtempSync(join(tmpdir(), 'switchboard-tarballs-'));
  let ok = true;
  try {
    const packed = join(scratch, 'packed');
    mkdirSync(packed);
    const tarballs = packPublished(packed);
    const problems = [...tarballs].flatMap(([name, tarball]) =>
      contentProblems(name, tarball, join(scratch, 'contents')),
    );
    if (problems.length > 0) {
      ok = false;
      console.log(`tarball contents: FAIL\n  ${problems.join('\n  ')}`);
    } else {
      console.log(
        `tarball contents: ok (${tarballs.size} tarballs: no numbered citations, README links inside)`,
      );
    }
    for (const [label, check] of [
      ['npx @switchboard/cli', checkCli],
      ['loadConfig', checkLoadConfig],
      ['@switchboard/scripted alone', checkScriptedAlone],
    ]) {
      try {
        console.log(`${label}: ok\n  ${check(scratch, tarballs)}`);
      } catch (error) {
        ok = false;
        console.log(`${label}: FAIL\n${error.message}`);
      }
    }
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  return ok;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  if (!checkTarballs()) process.exitCode = 1;
}
