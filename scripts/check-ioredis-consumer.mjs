// ioredis consumer check (issue 39): fixtures/ioredis-consumer gives RedisBudgetStore a
// caller's Redis and Cluster of ioredis 5 and of ioredis 6 (each installed under an alias,
// as two consumers would install one or the other), and is compiled with the TypeScript
// compiler against the built @switchboard/budget (linked by the workspace, so its
// package.json `exports` and declarations are what is read), strict, with
// exactOptionalPropertyTypes and skipLibCheck off for the fixture and our declarations.
// Fails when a client of either version is not accepted (e.g. TS2322 for ioredis 6's
// `Redis<"legacy">` against a type taken from ioredis 5's class).
//
// Usage: node scripts/check-ioredis-consumer.mjs   (after the build)
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { programDiagnostics } from './program-diagnostics.mjs';
import { root } from './workspace-packages.mjs';

const fixture = `${root}fixtures/ioredis-consumer`;

/** Compiles the fixture; returns false on a diagnostic (printed). */
export function checkIoredisConsumer() {
  const config = ts.getParsedCommandLineOfConfigFile(
    `${fixture}/tsconfig.json`,
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
        throw new Error(ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
      },
    },
  );
  const program = ts.createProgram({ rootNames: config.fileNames, options: config.options });
  const { diagnostics, checked, text } = programDiagnostics(
    program,
    (fileName) => fileName.startsWith(fixture) || /\/packages\/budget\/dist\//.test(fileName),
    null,
    root,
    config.errors,
  );
  // pnpm keeps each version in a folder named after it: both must have been read.
  const versions = new Set(
    program.getSourceFiles().flatMap((file) => /\/\.pnpm\/ioredis@(\d+)\./.exec(file.fileName)?.[1] ?? []),
  );
  if (checked === 0) {
    console.log('ioredis consumer fixture: FAIL, the built @switchboard/budget declarations were not loaded');
    return false;
  }
  if (versions.length < 2) {
    console.log(
      `ioredis consumer fixture: FAIL, only ${versions.join(', ') || 'no'} ioredis declarations were loaded`,
    );
    return false;
  }
  if (diagnostics.length > 0) {
    console.log(`ioredis consumer fixture: FAIL\n${text}`);
    return false;
  }
  console.log(
    `ioredis consumer fixture: ok (clients of ioredis 5 and 6; ${checked} declaration files of ours checked)`,
  );
  return true;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  if (!checkIoredisConsumer()) process.exitCode = 1;
}
