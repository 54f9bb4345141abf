import { join } from 'node:path';
import ts from 'typescript';
import type { CodeBlock } from './extract-code-blocks.js';

/** Where and against what the blocks are checked. */
export interface CheckCodeBlocksOptions {
  /** The folder the blocks are checked as if they lived in; its package.json decides ESM or CommonJS. */
  readonly folder: string;
  /** Module names mapped to the file they resolve to, e.g. `@switchboard/prices` to its `src/index.ts`. */
  readonly paths: Readonly<Record<string, string>>;
}

// What a reader's project would use: Node 20, strict, ESM unless the block require()s.
const COMPILER_OPTIONS: ts.CompilerOptions = {
  target: ts.ScriptTarget.ES2022,
  lib: ['lib.es2023.d.ts'],
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
  moduleDetection: ts.ModuleDetectionKind.Force,
  types: ['node'],
  strict: true,
  allowJs: true,
  checkJs: true,
  resolveJsonModule: true,
  esModuleInterop: true,
  skipLibCheck: true,
  noEmit: true,
};

/** The virtual file a block is checked as: `.cts`/`.cjs` when it calls require(), else `.ts`/`.js`. */
function blockFileName(block: CodeBlock, folder: string): string {
  const commonJs = /\brequire\(/.test(block.code);
  const extension = `${commonJs ? 'c' : ''}${block.language}`;
  const slug = block.file.replace(/[^\w.-]+/g, '_');
  return join(folder, '.readme-blocks', `${slug}-${block.line}.${extension}`);
}

/**
 * Type-checks every block as a module of its own in one program and returns,
 * for each block in order, its diagnostics as `file:line:column: TSxxxx message`
 * lines pointing into the Markdown file (empty when the block is fine).
 */
export function checkCodeBlocks(blocks: readonly CodeBlock[], options: CheckCodeBlocksOptions): string[][] {
  const files = new Map(blocks.map((block) => [blockFileName(block, options.folder), block]));
  const paths = Object.fromEntries(Object.entries(options.paths).map(([name, file]) => [name, [file]]));
  const compilerOptions = { ...COMPILER_OPTIONS, paths };
  const host = ts.createCompilerHost(compilerOptions, true);
  const { fileExists, readFile, getSourceFile, directoryExists } = host;
  host.fileExists = (file) => files.has(file) || fileExists.call(host, file);
  const text = (block: CodeBlock): string => `${block.prelude}${block.code}`;
  host.readFile = (file) => {
    const block = files.get(file);
    return block === undefined ? readFile.call(host, file) : text(block);
  };
  host.directoryExists = (directory) =>
    directory === join(options.folder, '.readme-blocks') || (directoryExists?.call(host, directory) ?? true);
  host.getSourceFile = (file, languageVersion, ...rest) => {
    const block = files.get(file);
    return block === undefined
      ? getSourceFile.call(host, file, languageVersion, ...rest)
      : ts.createSourceFile(file, text(block), languageVersion, true);
  };
  const program = ts.createProgram({ rootNames: [...files.keys()], options: compilerOptions, host });
  return [...files].map(([file, block]) => {
    const source = program.getSourceFile(file);
    if (source === undefined) return [`${block.file}:${block.line}: the block could not be read`];
    // Problems in the prelude belong to the blocks it was taken from, which report them.
    const preludeLength = block.prelude.length;
    const diagnostics = [
      ...program.getSyntacticDiagnostics(source),
      ...program.getSemanticDiagnostics(source),
    ].filter((diagnostic) => (diagnostic.start ?? preludeLength) >= preludeLength);
    const preludeLines = block.prelude.split('\n').length - 1;
    return diagnostics.map((diagnostic) => {
      const { line, character } = source.getLineAndCharacterOfPosition(diagnostic.start ?? 0);
      const message = ts.flattenDiagnosticMessageText(diagnostic.messageText, ' ');
      // +1 for the opening fence; Markdown lines count from 1 like the fence's.
      return `${block.file}:${block.line + line - preludeLines + 1}:${character + 1}: TS${diagnostic.code} ${message}`;
    });
  });
}
