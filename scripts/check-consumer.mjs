// Consumer check (issues 6 and 14): fixtures/consumer/index.ts imports every
// public name of every published package and is compiled twice with the
// TypeScript compiler, with moduleResolution "bundler" and with "node16", against
// the built packages (linked into fixtures/consumer/node_modules by the
// workspace, so package.json `exports` and `types` are really used; our
// declarations are type-checked as with skipLibCheck off). fixtures/consumer/cjs
// is a `"type": "commonjs"` TypeScript consumer: compiled to require() calls
// through the `require` condition and the `.d.cts` types, then run. The check
// fails when a package exports a name the fixture does not import, and when a
// published workspace package is missing from the fixture's dependencies.
//
// Usage: node scripts/check-consumer.mjs
import { spawnSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { programDiagnostics } from './program-diagnostics.mjs';
import { libraryPackages, root } from './workspace-packages.mjs';

const fixture = `${root}fixtures/consumer`;
const RESOLUTIONS = ['bundler', 'node16', 'cjs'];

/** Names a module exports, read from its syntax (tsup's bundled `.d.ts` ends in one `export { … }`). */
function exportedNames(file) {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest);
  const names = new Set();
  for (const statement of source.statements) {
    if (
      ts.isExportDeclaration(statement) &&
      statement.exportClause &&
      ts.isNamedExports(statement.exportClause)
    ) {
      for (const element of statement.exportClause.elements) names.add(element.name.text);
    } else if (statement.modifiers?.some((modifier) => modifier.kind === ts.SyntaxKind.ExportKeyword)) {
      if (ts.isVariableStatement(statement)) {
        for (const declaration of statement.declarationList.declarations)
          names.add(declaration.name.getText(source));
      } else if (statement.name) {
        names.add(statement.name.text);
      }
    }
  }
  return names;
}

/** For each module specifier the fixture imports from, the names it imports. */
function importedNames(file) {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest);
  const imports = new Map();
  for (const statement of source.statements) {
    if (!ts.isImportDeclaration(statement)) continue;
    const specifier = statement.moduleSpecifier.text;
    const names = imports.get(specifier) ?? new Set();
    const bindings = statement.importClause?.namedBindings;
    if (bindings && ts.isNamedImports(bindings)) {
      for (const element of bindings.elements) names.add((element.propertyName ?? element.name).text);
    }
    imports.set(specifier, names);
  }
  return imports;
}

/** Public names of the published packages that the fixture does not import. */
export function missingImports() {
  const imports = importedNames(`${fixture}/index.ts`);
  const manifest = JSON.parse(readFileSync(`${fixture}/package.json`, 'utf8'));
  const problems = [];
  for (const name of Object.keys(manifest.dependencies)) {
    const packageFolder = `${fixture}/node_modules/${name}`;
    const entry = JSON.parse(readFileSync(`${packageFolder}/package.json`, 'utf8')).exports['.'];
    const types = entry.import?.types ?? entry.types;
    const imported = imports.get(name) ?? new Set();
    const missing = [...exportedNames(`${packageFolder}/${types}`)].filter(
      (exported) => !imported.has(exported),
    );
    if (missing.length > 0) problems.push(`${name}: ${missing.join(', ')}`);
  }
  const published = libraryPackages().map((pkg) => pkg.name);
  const absent = published.filter((name) => !(name in manifest.dependencies));
  if (absent.length > 0) {
    problems.push(
      `published packages missing from fixtures/consumer/package.json dependencies (add them as "workspace:^" and import their names in index.ts): ${absent.join(', ')}`,
    );
  }
  return problems;
}

/** Compiles the fixture with one of its tsconfigs; only the fixture and our own declarations are type-checked. */
function compile(resolution) {
  const configFile = `${fixture}/tsconfig.${resolution}.json`;
  const config = ts.getParsedCommandLineOfConfigFile(
    configFile,
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
        throw new Error(ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
      },
    },
  );
  const program = ts.createProgram({ rootNames: config.fileNames, options: config.options });
  const emitted = config.options.noEmit ? null : program.emit();
  const { diagnostics, checked, text } = programDiagnostics(
    program,
    (fileName) => fileName.startsWith(fixture) || /\/packages\/[^/]+\/dist\//.test(fileName),
    emitted,
    root,
    config.errors,
  );
  return {
    resolution,
    checked,
    code: diagnostics.length === 0 ? 0 : 1,
    output: text,
    outDir: config.options.outDir,
  };
}

/** Runs the compiled CommonJS consumer; it calls the emulator through every package loaded with require(). */
function runCommonJs(outDir) {
  try {
    const run = spawnSync(process.execPath, [`${outDir}/index.js`], { encoding: 'utf8', timeout: 60_000 });
    return { ok: run.status === 0, output: `${run.stdout}${run.stderr}`.trimEnd() };
  } finally {
    rmSync(outDir, { recursive: true, force: true });
  }
}

/** Compiles the fixture both ways and checks its imports are complete; returns false on a problem. */
export function checkConsumer() {
  let ok = true;
  const missing = missingImports();
  if (missing.length > 0) {
    ok = false;
    console.log(`consumer fixture: FAIL, public names not imported by fixtures/consumer/index.ts:`);
    for (const line of missing) console.log(`  ${line}`);
  }
  const expected = libraryPackages().length;
  for (const result of RESOLUTIONS.map(compile)) {
    if (result.checked < expected) {
      ok = false;
      console.log(
        `consumer fixture, ${result.resolution}: FAIL, only ${result.checked} declaration files of ours were loaded`,
      );
    } else if (result.code === 0 && result.outDir) {
      const run = runCommonJs(result.outDir);
      if (!run.ok) ok = false;
      console.log(
        `consumer fixture, ${result.resolution}: ${run.ok ? 'ok' : 'FAIL'} (${result.checked} declaration files checked; ran it)\n  ${run.output}`,
      );
    } else if (result.code === 0) {
      console.log(`consumer fixture, ${result.resolution}: ok (${result.checked} declaration files checked)`);
    } else {
      ok = false;
      console.log(`consumer fixture, ${result.resolution}: FAIL\n${result.output}`);
    }
  }
  return ok;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  if (!checkConsumer()) process.exitCode = 1;
}
