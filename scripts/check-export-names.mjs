// Every class and function a published package exports keeps its own name in
// both builds (ESM and CommonJS): `error.name`, `inspect()` output and stack
// traces show it. The builds run without esbuild's `keepNames` (its `__name`
// call on every function costs time on every call), so a class that refers to
// itself by name would come out renamed (`_ChatAdapter`); this catches that.
//
// Usage: node scripts/check-export-names.mjs   (expects the packages built)
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { publishedPackages } from './workspace-packages.mjs';

const problems = [];
let checked = 0;
for (const pkg of publishedPackages()) {
  const exported = pkg.manifest.exports?.['.'];
  if (exported === undefined) continue;
  const esmFile = exported.import?.default ?? exported.import;
  const cjsFile = exported.require?.default ?? exported.require;
  const builds = [];
  if (typeof esmFile === 'string')
    builds.push(['esm', await import(pathToFileURL(join(pkg.dir, esmFile)).href)]);
  if (typeof cjsFile === 'string')
    builds.push(['cjs', createRequire(join(pkg.dir, 'package.json'))(join(pkg.dir, cjsFile))]);
  for (const [format, api] of builds) {
    for (const [key, value] of Object.entries(api)) {
      if (typeof value !== 'function') continue;
      checked += 1;
      if (value.name !== key)
        problems.push(`${pkg.name} (${format}): export ${key} is named "${value.name}"`);
    }
  }
}
for (const problem of problems) console.log(problem);
console.log(`export names: ${checked} functions and classes checked, ${problems.length} renamed`);
if (problems.length > 0) process.exitCode = 1;
