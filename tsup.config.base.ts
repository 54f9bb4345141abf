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
    // No `keepNames`: its `__name` call runs on every closure a call creates. A class that
    // refers to itself by name would then come out renamed (`_ChatAdapter`), so classes
    // make copies of themselves through a module-level function; scripts/check-export-names.mjs
    // checks that every exported class and function keeps its name in both builds.
    keepNames: false,
    ...overrides,
  };
}
