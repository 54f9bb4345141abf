import type { Options } from 'tsup';

/**
 * The one build configuration every package uses: ESM (`.js`, `.d.ts`) and CommonJS
 * (`.cjs`, `.d.cts`) for Node 20+, sourcemaps, JSON data files inlined so each entry
 * loads as a single module. CommonJS is there for `require()` callers (issue 14); the
 * two copies share nothing at run time, which is why errors are recognised with
 * `isInstance` (a `Symbol.for` marker) rather than `instanceof`.
 */
export function packageBuild(overrides: Options = {}): Options {
  return {
    entry: ['src/index.ts'],
    format: ['esm', 'cjs'],
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
