import type { Options } from 'tsup';

/**
 * The one build configuration every package uses: ESM for Node 20+, declarations,
 * sourcemaps, JSON data files inlined so each entry loads as a single module.
 */
export function packageBuild(overrides: Options = {}): Options {
  return {
    entry: ['src/index.ts'],
    format: ['esm'],
    target: 'node20',
    platform: 'node',
    dts: true,
    sourcemap: true,
    clean: true,
    splitting: false,
    treeshake: true,
    // Classes that refer to themselves get renamed by esbuild (`_ChatAdapter`);
    // class and error names are part of what users see.
    keepNames: true,
    ...overrides,
  };
}
