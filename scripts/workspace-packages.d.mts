// Types of workspace-packages.mjs, for the TypeScript files that import it.

/** One workspace package, read from its package.json. */
export interface WorkspacePackage {
  /** The package name, e.g. `@switchboard/prices`. */
  readonly name: string;
  /** Its folder relative to the repository root, e.g. `packages/prices`. */
  readonly folder: string;
  /** Its absolute folder. */
  readonly dir: string;
  /** Its parsed package.json. */
  readonly manifest: Record<string, unknown>;
  /** False for `"private": true` packages. */
  readonly published: boolean;
}

/** The repository root, with a trailing slash. */
export const root: string;
/** The folders pnpm-workspace.yaml names, relative to the root. */
export function workspaceFolders(): string[];
/** Every workspace package. */
export function workspacePackages(): WorkspacePackage[];
/** The packages that are released to the registry. */
export function publishedPackages(): WorkspacePackage[];
/** The published packages with an `exports` entry (libraries, not a bin-only tool). */
export function libraryPackages(): WorkspacePackage[];
/** Each workspace package's name mapped to its `src/index.ts`, for those that have one. */
export function sourceEntries(): Record<string, string>;
