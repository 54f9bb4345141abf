// `pnpm run pack`: the tarballs a registry would serve, and nothing else. Builds the
// published packages (turbo, filtered to them), then packs each with `pnpm pack` (so
// `workspace:` ranges become versions) into one folder, default `tarballs/` at the
// repository root, emptied of older tarballs first. Private workspace packages (test
// helpers, the docs check, the bench, fixtures) are left out; the CLI (apps/demo) is in.
//
// Beside the tarballs it writes `overrides.json`: each published package's name mapped to
// `file:<absolute path of its tarball>`. pnpm resolves a tarball's dependencies on its
// siblings (`^0.1.0`) from the registry unless told otherwise; these are the overrides
// that tell it (docs/releasing.md, "Try it from tarballs").
//
// Usage: node scripts/pack.mjs [folder] [--no-build]
// (SWITCHBOARD_PACK_BUILT=1 also skips the build: the docs check sets it when it runs the
// recipe, after turbo has built every published package for its test task.)
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { publishedPackages, root } from './workspace-packages.mjs';

/** The command that runs pnpm: the one running this script when there is one, else a pinned copy through npx. */
function pnpmCommand() {
  // biome-ignore lint/suspicious/noUndeclaredEnvVars: set by the package manager running this script, not a build input.
  const execPath = process.env.npm_execpath ?? '';
  if (/pnpm/.test(execPath)) return [process.execPath, [execPath]];
  return ['npx', ['--yes', 'pnpm@10.34.8']];
}

function run(command, args, options = {}) {
  const result = spawnSync(command, args, {
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1', NPM_CONFIG_UPDATE_NOTIFIER: 'false' },
    timeout: 600_000,
    ...options,
  });
  if (result.status !== 0) {
    throw new Error(
      `${command} ${args.join(' ')} (in ${options.cwd ?? root}) exited ${result.status}:\n` +
        `${result.stdout ?? ''}${result.stderr ?? ''}${result.error?.message ?? ''}`,
    );
  }
  return result.stdout;
}

/**
 * Packs every published package into `folder` (made when missing); returns package name ->
 * tarball path. Expects the packages to be built.
 */
export function packPublished(folder) {
  mkdirSync(folder, { recursive: true });
  const [command, prefix] = pnpmCommand();
  const tarballs = new Map();
  for (const pkg of publishedPackages()) {
    const before = new Set(readdirSync(folder));
    run(command, [...prefix, 'pack', '--pack-destination', folder], { cwd: pkg.dir });
    const made = readdirSync(folder).filter((name) => name.endsWith('.tgz') && !before.has(name));
    if (made.length !== 1)
      throw new Error(`pnpm pack of ${pkg.name} made ${made.join(', ') || 'no tarball'}`);
    tarballs.set(pkg.name, join(folder, made[0]));
  }
  return tarballs;
}

/** `{ name: "file:<tarball>" }` for every packed package: pnpm's overrides for installing from them. */
function tarballOverrides(tarballs) {
  return Object.fromEntries([...tarballs].map(([name, path]) => [name, `file:${path}`]));
}

function main(args) {
  // biome-ignore lint/suspicious/noUndeclaredEnvVars: set by the docs check, not a build input.
  const build = !args.includes('--no-build') && process.env.SWITCHBOARD_PACK_BUILT !== '1';
  const folder = resolve(root, args.find((arg) => !arg.startsWith('--')) ?? 'tarballs');
  if (build) {
    const filters = publishedPackages().map((pkg) => `--filter=${pkg.name}`);
    run(join(root, 'node_modules/.bin/turbo'), ['run', 'build', '--output-logs=errors-only', ...filters], {
      cwd: root,
      stdio: ['ignore', 'inherit', 'inherit'],
    });
  }
  mkdirSync(folder, { recursive: true });
  for (const name of readdirSync(folder)) {
    if (name.endsWith('.tgz') || name === 'overrides.json') rmSync(join(folder, name));
  }
  const tarballs = packPublished(folder);
  writeFileSync(join(folder, 'overrides.json'), `${JSON.stringify(tarballOverrides(tarballs), null, 2)}\n`);
  for (const path of tarballs.values()) console.log(path);
  console.log(`${join(folder, 'overrides.json')} (pnpm overrides: each package to its tarball)`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  try {
    main(process.argv.slice(2));
  } catch (error) {
    console.error(`pack: ${error.message}`);
    process.exitCode = 1;
  }
}
