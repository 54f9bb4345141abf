// size-limit's configuration (issue 9): one check per published workspace
// package, derived from the workspace, with the budgets of size-budgets.json.
// Each package's ESM entry is bundled by @size-limit/esbuild for Node 20
// (built-ins and peer dependencies external, dependencies bundled) and measured
// with gzip.
import { readFileSync } from 'node:fs';
import { publishedPackages } from './scripts/workspace-packages.mjs';

const budgets = JSON.parse(readFileSync(new URL('./size-budgets.json', import.meta.url), 'utf8'));

/** The ESM file a package's `import` condition resolves to; for a command-line tool, its bin. */
function esmEntry(manifest) {
  const entry = manifest.exports?.['.'];
  const bin = typeof manifest.bin === 'string' ? manifest.bin : Object.values(manifest.bin ?? {})[0];
  const target = entry?.import?.default ?? entry?.import ?? entry?.default ?? manifest.main ?? bin;
  return String(target).replace(/^\.\//, '');
}

export default publishedPackages().map((pkg) => {
  const budget = budgets[pkg.name];
  return {
    name: pkg.name,
    path: `${pkg.folder}/${esmEntry(pkg.manifest)}`,
    gzip: true,
    // A peer dependency is the user's own copy, not part of the package's weight.
    ignore: Object.keys(pkg.manifest.peerDependencies ?? {}),
    ...(budget ? { limit: `${budget.maxGzipBytes} B` } : {}),
    modifyEsbuildConfig: (config) => ({ ...config, platform: 'node', target: 'node20', format: 'esm' }),
  };
});
