// The CHANGELOG entry of a price change lists each model's old and new prices: compares
// packages/prices/src/price-table.json with its version at a base commit (default HEAD:
// the change not yet committed; in CI, the branch's base, e.g. --base origin/main) and
// fails unless a pending changeset releasing @switchboard/prices lists every added,
// removed, changed or re-checked model, word for word, with its old and new figures and
// checked dates. `--write` writes that changeset (a patch of @switchboard/prices alone).
//
// Usage: node scripts/check-price-changelog.mjs [--base REF] [--write]
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { priceChanges, priceChangeset, unlistedChanges } from './price-changes.mjs';
import { root } from './workspace-packages.mjs';

const TABLE = 'packages/prices/src/price-table.json';

function tableAt(ref) {
  const run = spawnSync('git', ['show', `${ref}:${TABLE}`], { cwd: root, encoding: 'utf8' });
  // A base without the file (the first price table) has no prices: every model is added.
  if (run.status !== 0) return null;
  return JSON.parse(run.stdout);
}

function pendingChangesets() {
  const folder = join(root, '.changeset');
  return readdirSync(folder)
    .filter((name) => name.endsWith('.md') && name !== 'README.md')
    .map((name) => ({ name, text: readFileSync(join(folder, name), 'utf8') }));
}

/** Runs the check; returns false when a change is not listed (after writing the changeset with `write`). */
export function checkPriceChangelog({ base = 'HEAD', write = false } = {}) {
  const before = tableAt(base);
  const after = JSON.parse(readFileSync(join(root, TABLE), 'utf8'));
  const changes = priceChanges(before, after);
  if (changes.length === 0) {
    console.log(`price changelog: no price change since ${base}`);
    return true;
  }
  const changesets = pendingChangesets();
  let missing = unlistedChanges(
    changes,
    changesets.map((changeset) => changeset.text),
  );
  if (missing.length > 0 && write) {
    const name = `prices-${new Date().toISOString().slice(0, 10)}-${Date.now().toString(36)}.md`;
    writeFileSync(join(root, '.changeset', name), priceChangeset(missing));
    console.log(`price changelog: wrote .changeset/${name}`);
    missing = [];
  }
  console.log(`price changelog: ${changes.length} model(s) changed since ${base}:`);
  for (const change of changes) console.log(`  ${change.line}`);
  if (missing.length === 0) {
    console.log('price changelog: ok, a pending @switchboard/prices changeset lists every change');
    return true;
  }
  console.log(
    'price changelog: FAIL, no pending changeset releasing @switchboard/prices lists these lines (run with --write to add one):',
  );
  for (const change of missing) console.log(`  ${change.line}`);
  return false;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const baseAt = args.indexOf('--base');
  const base = baseAt === -1 ? 'HEAD' : args[baseAt + 1];
  if (base === undefined || base.startsWith('--')) {
    console.error('check-price-changelog: --base needs a git ref');
    process.exitCode = 2;
  } else if (!checkPriceChangelog({ base, write: args.includes('--write') })) {
    process.exitCode = 1;
  }
}
