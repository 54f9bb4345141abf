// OpenTelemetry consumer check: fixtures/otel-consumer uses @switchboard/telemetry's
// observer with the real @opentelemetry/api objects (a tracer, the meter provider,
// the module itself), as an application does. This packs @switchboard/prices,
// adapter and telemetry with pnpm (the tarballs a registry would serve), unpacks
// them into a project outside the workspace beside the installed
// @opentelemetry/api, openai and @types/node, then compiles the fixture with
// TypeScript as an ES module and as CommonJS (module node16, strict, our
// declarations checked) and runs both builds.
//
// Usage: node scripts/check-otel-consumer.mjs
import { execFileSync, spawnSync } from 'node:child_process';
import {
  cpSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { programDiagnostics } from './program-diagnostics.mjs';
import { root } from './workspace-packages.mjs';

const PACKED = ['prices', 'adapter', 'telemetry'];
const INSTALLED = ['@opentelemetry/api', 'openai', '@types/node'];
const PNPM = ['--yes', 'pnpm@10.34.8'];

/** A project with the packed packages and the real OpenTelemetry API in its node_modules. */
function project() {
  const dir = mkdtempSync(join(tmpdir(), 'otel-consumer-'));
  const tarballs = join(dir, 'tarballs');
  mkdirSync(tarballs);
  for (const name of PACKED) {
    execFileSync('npx', [...PNPM, 'pack', '--pack-destination', tarballs], {
      cwd: join(root, 'packages', name),
      stdio: ['ignore', 'ignore', 'inherit'],
    });
  }
  for (const tarball of readdirSync(tarballs)) {
    const name = PACKED.find((each) => tarball.startsWith(`switchboard-${each}-`));
    if (name === undefined) continue;
    const into = join(dir, 'node_modules/@switchboard', name);
    mkdirSync(into, { recursive: true });
    execFileSync('tar', ['-xzf', join(tarballs, tarball), '-C', into, '--strip-components=1']);
  }
  // The installed packages, as a registry install would lay them out (their own
  // dependencies resolve from where pnpm keeps them).
  const resolveFrom = join(root, 'packages/telemetry/node_modules');
  for (const name of INSTALLED) {
    const from = [resolveFrom, join(root, 'packages/adapter/node_modules'), join(root, 'node_modules')]
      .map((base) => join(base, name))
      .find((path) => {
        try {
          realpathSync(path);
          return true;
        } catch {
          return false;
        }
      });
    if (from === undefined) throw new Error(`${name} is not installed in the workspace`);
    mkdirSync(join(dir, 'node_modules', name, '..'), { recursive: true });
    symlinkSync(realpathSync(from), join(dir, 'node_modules', name), 'dir');
  }
  cpSync(join(root, 'fixtures/otel-consumer/esm'), join(dir, 'esm'), { recursive: true });
  cpSync(join(root, 'fixtures/otel-consumer/cjs'), join(dir, 'cjs'), { recursive: true });
  writeFileSync(join(dir, 'esm/package.json'), '{"type":"module"}\n');
  writeFileSync(join(dir, 'cjs/package.json'), '{"type":"commonjs"}\n');
  return dir;
}

/** Compiles one side of the fixture; only the fixture and our declarations are type-checked. */
function compile(dir, side) {
  const options = {
    target: ts.ScriptTarget.ES2022,
    lib: ['lib.es2023.d.ts'],
    module: ts.ModuleKind.Node16,
    moduleResolution: ts.ModuleResolutionKind.Node16,
    types: ['node'],
    strict: true,
    noUnusedLocals: true,
    skipLibCheck: false,
    outDir: join(dir, side, 'dist'),
    rootDir: join(dir, side),
  };
  const program = ts.createProgram({ rootNames: [join(dir, side, 'index.ts')], options });
  const emitted = program.emit();
  const { diagnostics, checked, text } = programDiagnostics(
    program,
    (fileName) => fileName.startsWith(join(dir, side)) || fileName.includes('/@switchboard/'),
    emitted,
    dir,
  );
  // The fixture reads the adapter's and the telemetry's declarations (the prices' are not referenced).
  return { ok: diagnostics.length === 0 && checked >= 2, checked, text };
}

function run(dir, side) {
  const result = spawnSync(process.execPath, [join(dir, side, 'dist/index.js')], {
    cwd: dir,
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { ok: result.status === 0, output: `${result.stdout}${result.stderr}`.trim() };
}

/** Packs, compiles and runs both sides; returns false on a problem. */
export function checkOtelConsumer() {
  const dir = project();
  let ok = true;
  try {
    for (const side of ['esm', 'cjs']) {
      const compiled = compile(dir, side);
      if (!compiled.ok) {
        ok = false;
        console.log(
          `otel consumer fixture, ${side}: FAIL (${compiled.checked} declaration files of ours)\n${compiled.text}`,
        );
        continue;
      }
      const ran = run(dir, side);
      if (!ran.ok) ok = false;
      console.log(
        `otel consumer fixture, ${side}: ${ran.ok ? 'ok' : 'FAIL'} (${compiled.checked} declaration files checked; ran it)\n  ${ran.output}`,
      );
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return ok;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  if (!checkOtelConsumer()) process.exitCode = 1;
}
