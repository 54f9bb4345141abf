// Gives a published workspace package the manifest fields and files the
// package checks expect (issues 9 and 14), for a package written before them or
// copied from an older one: the dual `exports` (`import` and `require`, `types`
// first), `main`/`types`, `files` with LICENSE, the `publint` and `attw` scripts
// turbo runs, and the root LICENSE copied in. Other fields are left as they are.
//
// Usage: node scripts/conform-package.mjs packages/<name> [...]
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { root } from './workspace-packages.mjs';

const SCRIPTS = {
  publint: 'publint --strict',
  attw: 'attw --pack . --format ascii --no-color --no-emoji',
};

/** Rewrites one package's manifest in place and copies the LICENSE. */
export function conformPackage(folder) {
  const file = join(root, folder, 'package.json');
  const manifest = JSON.parse(readFileSync(file, 'utf8'));
  if (manifest.private) throw new Error(`${folder} is private: nothing to publish, nothing to conform`);
  manifest.main = './dist/index.cjs';
  manifest.types = './dist/index.d.cts';
  manifest.exports = {
    ...manifest.exports,
    '.': {
      import: { types: './dist/index.d.ts', default: './dist/index.js' },
      require: { types: './dist/index.d.cts', default: './dist/index.cjs' },
    },
    './package.json': './package.json',
  };
  manifest.files = [...new Set([...(manifest.files ?? ['dist']), 'LICENSE'])];
  manifest.scripts = { ...manifest.scripts, ...SCRIPTS };
  writeFileSync(file, `${JSON.stringify(manifest, null, 2)}\n`);
  copyFileSync(join(root, 'LICENSE'), join(root, folder, 'LICENSE'));
  console.log(`${folder}: exports, main, types, files, scripts and LICENSE conformed`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const folders = process.argv.slice(2);
  if (folders.length === 0) {
    console.error('usage: node scripts/conform-package.mjs packages/<name> [...]');
    process.exitCode = 2;
  }
  for (const folder of folders) conformPackage(folder);
}
