// Runs every workspace's vitest suite under another Node major, taken from the
// npm registry as the `node@<major>` package (users run 22 and 24; CI runs 20).
// Expects the packages and the CLI to be built (`pnpm build`).
//
// Usage: node scripts/test-on-node.mjs 24
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { root, workspacePackages } from './workspace-packages.mjs';

const major = process.argv[2] ?? '24';
if (!/^\d+$/.test(major)) {
  console.error(`usage: node scripts/test-on-node.mjs <major>, e.g. 24 (got '${major}')`);
  process.exit(2);
}
const prefix = join(tmpdir(), `switchboard-node-${major}`);
const node = join(prefix, 'node_modules', '.bin', 'node');
if (!existsSync(node)) {
  mkdirSync(prefix, { recursive: true });
  console.log(`installing node@${major} into ${prefix} ...`);
  execFileSync(
    'npm',
    ['install', '--prefix', prefix, '--no-save', '--no-audit', '--no-fund', `node@${major}`],
    {
      stdio: 'inherit',
    },
  );
}
console.log(`node ${execFileSync(node, ['--version'], { encoding: 'utf8' }).trim()}`);

const vitest = join(root, 'node_modules', 'vitest', 'vitest.mjs');
const workspaces = workspacePackages().map((pkg) => pkg.dir);
let failed = 0;
for (const workspace of workspaces) {
  if (!existsSync(join(workspace, 'vitest.config.ts'))) continue;
  const run = spawnSync(node, [vitest, 'run', '--reporter=dot'], { cwd: workspace, stdio: 'inherit' });
  if (run.status !== 0) failed += 1;
}
console.log(
  failed === 0 ? `all suites passed on Node ${major}` : `${failed} suite(s) failed on Node ${major}`,
);
process.exit(failed === 0 ? 0 : 1);
