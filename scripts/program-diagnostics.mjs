// What the consumer checks report of a TypeScript program: the diagnostics of the
// fixture and of our own declarations (as `skipLibCheck: false` would check them;
// other libraries' declarations, e.g. @types/node, are left to their authors).
import ts from 'typescript';

/**
 * The program's option, global and emit diagnostics (after `earlier` ones, e.g. the
 * tsconfig's) plus those of the files `isOurs` accepts, the number of our declaration
 * files it loaded, and the diagnostics as text.
 */
export function programDiagnostics(program, isOurs, emitted, cwd, earlier = []) {
  const ours = program.getSourceFiles().filter((file) => isOurs(file.fileName));
  const diagnostics = [
    ...earlier,
    ...(emitted?.diagnostics ?? []),
    ...program.getOptionsDiagnostics(),
    ...program.getGlobalDiagnostics(),
    ...ours.flatMap((file) => [
      ...program.getSyntacticDiagnostics(file),
      ...program.getSemanticDiagnostics(file),
    ]),
  ];
  const text = ts.formatDiagnostics(diagnostics, {
    getCanonicalFileName: (name) => name,
    getCurrentDirectory: () => cwd,
    getNewLine: () => '\n',
  });
  return {
    diagnostics,
    checked: ours.filter((file) => /\.d\.c?ts$/.test(file.fileName)).length,
    text,
  };
}
