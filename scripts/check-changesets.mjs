// Independent releases: on a copy of the workspace's manifests and changeset
// files in a temporary folder (a git repository of its own), a price-table change
// must release @switchboard/prices alone. First the pending changesets are
// applied (the next release); then one changeset bumping only @switchboard/prices
// (patch) is added: `changeset status` must plan that one release and nothing
// else, and `changeset version` must change packages/prices/package.json and
// leave every other package.json byte for byte unchanged.
//
// Usage: node scripts/check-changesets.mjs
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { root, workspacePackages } from './workspace-packages.mjs';

const changeset = join(root, 'node_modules/@changesets/cli/bin.js');
const PRICE_CHANGE = `---\n'@switchboard/prices': patch\n---\n\nA price-table change.\n`;

/** Workspace manifests, relative to the root: the root one and one per workspace package. */
function manifests() {
  return ['package.json', ...workspacePackages().map((pkg) => `${pkg.folder}/package.json`)];
}

function runChangesetVersion(folder) {
  const run = spawnSync(process.execPath, [changeset, 'version'], { cwd: folder, encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`changeset version failed:\n${run.stdout}${run.stderr}`);
}

/** `changeset status` in `folder`: the releases it plans, as `name@type` strings. */
function plannedReleases(folder) {
  const git = (...args) => {
    const run = spawnSync('git', args, { cwd: folder, encoding: 'utf8' });
    if (run.status !== 0) throw new Error(`git ${args.join(' ')} failed:\n${run.stdout}${run.stderr}`);
  };
  // status compares with the base branch: a repository whose main holds this state, price change uncommitted.
  git('init', '-q', '-b', 'main');
  git('add', '-A');
  git('-c', 'user.name=check', '-c', 'user.email=check@localhost', 'commit', '-q', '-m', 'base');
  const run = spawnSync(process.execPath, [changeset, 'status', '--output=status.json'], {
    cwd: folder,
    encoding: 'utf8',
  });
  if (run.status !== 0) throw new Error(`changeset status failed:\n${run.stdout}${run.stderr}`);
  const status = JSON.parse(readFileSync(join(folder, 'status.json'), 'utf8'));
  rmSync(join(folder, 'status.json'));
  // A dependent that is not released (type none: a private workspace package) is no release.
  return status.releases
    .filter((release) => release.type !== 'none')
    .map((release) => `${release.name}@${release.type}`);
}

function snapshot(folder, files) {
  return new Map(files.map((file) => [file, readFileSync(join(folder, file), 'utf8')]));
}

/** Runs the dry run; prints what changed; returns false when anything but prices was bumped. */
export function checkChangesets() {
  const folder = mkdtempSync(join(tmpdir(), 'switchboard-changesets-'));
  try {
    const files = manifests();
    for (const file of [...files, 'pnpm-workspace.yaml']) {
      mkdirSync(dirname(join(folder, file)), { recursive: true });
      cpSync(join(root, file), join(folder, file));
    }
    cpSync(join(root, '.changeset'), join(folder, '.changeset'), { recursive: true });
    const pending = readdirSync(join(folder, '.changeset')).filter((name) => name.endsWith('.md')).length;
    if (pending > 0) runChangesetVersion(folder);
    const before = snapshot(folder, files);
    writeFileSync(join(folder, '.changeset/price-table-change.md'), PRICE_CHANGE);
    const planned = plannedReleases(folder);
    console.log(
      `changesets: changeset status plans ${planned.join(', ') || 'nothing'} for a price-table change`,
    );
    if (planned.length !== 1 || planned[0] !== '@switchboard/prices@patch') {
      console.log('changesets: FAIL, expected changeset status to plan @switchboard/prices@patch alone');
      return false;
    }
    runChangesetVersion(folder);
    const after = snapshot(folder, files);
    const changed = files.filter((file) => before.get(file) !== after.get(file));
    const version = (text) => JSON.parse(text).version;
    const prices = 'packages/prices/package.json';
    console.log(
      `changesets: ${pending} pending changeset(s) applied first; then a prices patch changed ${changed.join(', ') || 'nothing'}` +
        (changed.includes(prices)
          ? ` (${version(before.get(prices))} -> ${version(after.get(prices))})`
          : ''),
    );
    if (changed.length === 1 && changed[0] === prices) {
      console.log('changesets: ok, a price-table change releases @switchboard/prices alone');
      return true;
    }
    console.log('changesets: FAIL, expected only packages/prices/package.json to change');
    return false;
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  if (!checkChangesets()) process.exitCode = 1;
}
