import ts from 'typescript';

/**
 * The names each module exports as values (functions, classes, constants: what code can import
 * and call at run time), read by TypeScript from its source in one program; type-only exports
 * are left out. Keyed by the entry as given.
 */
export function valueExports(entries: readonly string[]): Map<string, string[]> {
  const program = ts.createProgram([...entries], {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    noEmit: true,
    skipLibCheck: true,
  });
  const checker = program.getTypeChecker();
  return new Map(
    entries.map((entry) => {
      const source = program.getSourceFile(entry);
      const module = source === undefined ? undefined : checker.getSymbolAtLocation(source);
      if (module === undefined) throw new Error(`${entry}: not a module TypeScript can read`);
      const names = checker
        .getExportsOfModule(module)
        .filter((symbol) => {
          const target = symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
          return (target.flags & ts.SymbolFlags.Value) !== 0;
        })
        .map((symbol) => symbol.name)
        .sort();
      return [entry, names];
    }),
  );
}

/** The names of `names` that the text never mentions as a whole word. */
export function unmentioned(names: readonly string[], text: string): string[] {
  return names.filter((name) => !new RegExp(`(?<![\\w$])${name.replace(/\$/g, '\\$')}(?![\\w$])`).test(text));
}

/** The string literals of a union type alias declared in `file` (`type Kind = 'a' | 'b'`), in order. */
export function stringLiterals(file: string, typeName: string): string[] {
  const program = ts.createProgram([file], {
    target: ts.ScriptTarget.ES2022,
    noEmit: true,
    skipLibCheck: true,
  });
  const source = program.getSourceFile(file);
  const alias = source?.statements.find(
    (statement): statement is ts.TypeAliasDeclaration =>
      ts.isTypeAliasDeclaration(statement) && statement.name.text === typeName,
  );
  if (alias === undefined) throw new Error(`${file}: no type ${typeName}`);
  const type = program.getTypeChecker().getTypeAtLocation(alias.name);
  const members = type.isUnion() ? type.types : [type];
  return members
    .filter((member) => member.isStringLiteral())
    .map((member) => (member as ts.StringLiteralType).value);
}
