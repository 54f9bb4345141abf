// The CHANGELOG entry of a price change lists each model's old and new prices: compares
// packages/prices/src/price-table.json (as it is in the working tree) with its version at
// a base commit and fails unless a pending changeset releasing @switchboard/prices lists
// every added, removed, changed or re-checked model, word for word, with its old and new
// figures and checked dates. `--write` writes that changeset (a patch of
// @switchboard/prices alone).
//
// The base, by default, is the last release of @switchboard/prices: the tag
// `@switchboard/prices@<version>` when the clone has it, else the newest commit that
// changed the `version` of packages/prices/package.json (where `changeset version` cut
// the release and consumed the changesets then pending). The pending changesets are
// what the next release's CHANGELOG is written from, so every price change since the
// last release must be in them: on a fresh clone of main (CI), a price change committed
// last week is still checked, not only an uncommitted one. A model changed twice since
// the release is compared release to now (its net change is the line to list). A shallow
// clone has no such history: the check refuses it (fetch the history, or pass --base).
// `--base REF` compares with REF instead (`--base HEAD`: the uncommitted change alone;
// `--base origin/main`: a pull request's change).
//
// Usage: node scripts/check-price-changelog.mjs [--base REF] [--write] [--root DIR]
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { priceChanges, priceChangeset, unlistedChanges } from './price-changes.mjs';
import { root as workspaceRoot } from './workspace-packages.mjs';

const TABLE = 'packages/prices/src/price-table.json';
const MANIFEST = 'packages/prices/package.json';
const PACKAGE = '@switchboard/prices';

function git(root, args) {
  return spawnSync('git', args, { cwd: root, encoding: 'utf8' });
}

function tableAt(root, ref) {
  const run = git(root, ['show', `${ref}:${TABLE}`]);
  // A base without the file (the first price table) has no prices: every model is added.
  if (run.status !== 0) return null;
  return JSON.parse(run.stdout);
}

/** The `version` of packages/prices/package.json at a commit, or null where it has none. */
function versionAt(root, ref) {
  const run = git(root, ['show', `${ref}:${MANIFEST}`]);
  if (run.status !== 0) return null;
  try {
    return JSON.parse(run.stdout).version ?? null;
  } catch {
    return null;
  }
}

/**
 * The commit of the last release of @switchboard/prices, as `{ ref, how }`; throws (with
 * what to do) in a shallow clone, whose history cannot say.
 */
export function releaseBase(root = workspaceRoot) {
  const version = JSON.parse(readFileSync(join(root, MANIFEST), 'utf8')).version;
  const tag = `${PACKAGE}@${version}`;
  const tagged = git(root, ['rev-parse', '--verify', '--quiet', `refs/tags/${tag}^{commit}`]);
  if (tagged.status === 0) return { ref: tagged.stdout.trim(), how: `the tag ${tag}` };
  if (git(root, ['rev-parse', '--is-shallow-repository']).stdout.trim() === 'true') {
    throw new Error(
      `a shallow clone cannot tell which commit released ${PACKAGE} (no tag ${tag}): fetch the history (git fetch --unshallow, or actions/checkout with fetch-depth: 0) or pass --base REF`,
    );
  }
  // Newest first, following first parents: the merge of a release branch counts as the release.
  const log = git(root, ['log', '--first-parent', '--format=%H', 'HEAD', '--', MANIFEST]);
  if (log.status !== 0) throw new Error(`git log failed: ${log.stderr.trim()}`);
  for (const commit of log.stdout.split('\n').filter(Boolean)) {
    const now = versionAt(root, commit);
    const before = versionAt(root, `${commit}^`);
    if (now !== null && now !== before) {
      return {
        ref: commit,
        how: `${commit.slice(0, 7)}, the commit that set ${PACKAGE} to ${now}`,
      };
    }
  }
  throw new Error(`no commit sets the version of ${MANIFEST}: pass --base REF`);
}

function pendingChangesets(root) {
  const folder = join(root, '.changeset');
  return readdirSync(folder)
    .filter((name) => name.endsWith('.md') && name !== 'README.md')
    .map((name) => ({ name, text: readFileSync(join(folder, name), 'utf8') }));
}

/**
 * Runs the check against `base` (default: the last release, see `releaseBase`); returns
 * false when a change is not listed (after writing the changeset with `write`).
 */
export function checkPriceChangelog({ base, write = false, root = workspaceRoot } = {}) {
  const { ref, how } = base === undefined ? releaseBase(root) : { ref: base, how: base };
  if (git(root, ['rev-parse', '--verify', '--quiet', `${ref}^{commit}`]).status !== 0) {
    throw new Error(`--base ${ref}: not a commit of this repository`);
  }
  const before = tableAt(root, ref);
  const after = JSON.parse(readFileSync(join(root, TABLE), 'utf8'));
  const changes = priceChanges(before, after);
  if (changes.length === 0) {
    console.log(`price changelog: no price change since ${how}`);
    return true;
  }
  const changesets = pendingChangesets(root);
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
  console.log(`price changelog: ${changes.length} model(s) changed since ${how}:`);
  for (const change of changes) console.log(`  ${change.line}`);
  if (missing.length === 0) {
    console.log(`price changelog: ok, a pending ${PACKAGE} changeset lists every change`);
    return true;
  }
  console.log(
    `price changelog: FAIL, no pending changeset releasing ${PACKAGE} lists these lines (run with --write to add one):`,
  );
  for (const change of missing) console.log(`  ${change.line}`);
  return false;
}

/** The value after `flag` in `args`: undefined when absent, null when it is missing. */
function optionValue(args, flag) {
  const at = args.indexOf(flag);
  if (at === -1) return undefined;
  const value = args[at + 1];
  return value === undefined || value.startsWith('--') ? null : value;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const base = optionValue(args, '--base');
  const root = optionValue(args, '--root');
  if (base === null || root === null) {
    console.error(
      `check-price-changelog: ${base === null ? '--base needs a git ref' : '--root needs a folder'}`,
    );
    process.exitCode = 2;
  } else {
    try {
      if (!checkPriceChangelog({ base, write: args.includes('--write'), root: root ?? workspaceRoot }))
        process.exitCode = 1;
    } catch (error) {
      console.error(`check-price-changelog: ${error.message}`);
      process.exitCode = 2;
    }
  }
}
