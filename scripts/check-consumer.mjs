// Consumer check (issue 6): fixtures/consumer/index.ts imports every public
// name of every published package and is compiled twice with the TypeScript
// compiler, with moduleResolution "bundler" and with "node16", against the built
// packages (linked into fixtures/consumer/node_modules by the workspace, so
// package.json `exports` and `types` are really used; our declarations are
// type-checked as with skipLibCheck off). It also fails when a package
// exports a name the fixture does not import, which keeps the fixture whole.
//
// Usage: node scripts/check-consumer.mjs
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const root = fileURLToPath(new URL('..', import.meta.url));
const fixture = `${root}fixtures/consumer`;
const RESOLUTIONS = ['bundler', 'node16'];

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
    const types = JSON.parse(readFileSync(`${packageFolder}/package.json`, 'utf8')).exports['.'].types;
    const imported = imports.get(name) ?? new Set();
    const missing = [...exportedNames(`${packageFolder}/${types}`)].filter(
      (exported) => !imported.has(exported),
    );
    if (missing.length > 0) problems.push(`${name}: ${missing.join(', ')}`);
  }
  return problems;
}

/**
 * Compiles the fixture with one of its tsconfigs. Only the fixture and our own
 * declarations are type-checked (as `skipLibCheck: false` would check them);
 * other libraries' declarations, e.g. @types/node, are left to their authors.
 */
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
  const ours = program
    .getSourceFiles()
    .filter((file) => file.fileName.startsWith(fixture) || /\/packages\/[^/]+\/dist\//.test(file.fileName));
  const diagnostics = [
    ...config.errors,
    ...program.getOptionsDiagnostics(),
    ...program.getGlobalDiagnostics(),
    ...ours.flatMap((file) => [
      ...program.getSyntacticDiagnostics(file),
      ...program.getSemanticDiagnostics(file),
    ]),
  ];
  const checked = ours.filter((file) => file.fileName.endsWith('.d.ts')).length;
  const output = ts.formatDiagnostics(diagnostics, {
    getCanonicalFileName: (name) => name,
    getCurrentDirectory: () => root,
    getNewLine: () => '\n',
  });
  return { resolution, checked, code: diagnostics.length === 0 ? 0 : 1, output };
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
  for (const result of RESOLUTIONS.map(compile)) {
    if (result.checked < 5) {
      ok = false;
      console.log(
        `consumer fixture, moduleResolution ${result.resolution}: FAIL, only ${result.checked} declaration files of ours were loaded`,
      );
    } else if (result.code === 0) {
      console.log(
        `consumer fixture, moduleResolution ${result.resolution}: ok (${result.checked} declaration files checked)`,
      );
    } else {
      ok = false;
      console.log(`consumer fixture, moduleResolution ${result.resolution}: FAIL\n${result.output}`);
    }
  }
  return ok;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  if (!checkConsumer()) process.exitCode = 1;
}
