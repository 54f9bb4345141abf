import { execFile } from 'node:child_process';
import { cp, mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { type Emulator, startEmulator } from '@switchboard/emulator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './run-cli.js';
import { tempDirectory } from './temp-directory.js';

const run = promisify(execFile);
const ROOT = join(import.meta.dirname, '../../..');
const TABLE = 'packages/prices/src/price-table.json';
const directory = tempDirectory('switchboard-prices-write-');
let gateway: Emulator;

beforeAll(async () => {
  gateway = await startEmulator({ flavor: 'gateway' });
});
afterAll(() => gateway.close());

/** A copy of what a price release touches, as a git repository of its own: never the real repository. */
async function repositoryCopy(): Promise<string> {
  const copy = join(directory.path, 'repo');
  for (const file of [
    TABLE,
    'packages/prices/package.json',
    '.changeset/config.json',
    'package.json',
    'pnpm-workspace.yaml',
  ]) {
    await mkdir(join(copy, file, '..'), { recursive: true });
    await cp(join(ROOT, file), join(copy, file));
  }
  const git = (...args: string[]) => run('git', args, { cwd: copy });
  await git('init', '-q', '-b', 'main');
  await git(
    '-c',
    'user.name=t',
    '-c',
    'user.email=t@example.com',
    'commit',
    '-q',
    '--allow-empty',
    '-m',
    'empty',
  );
  await git('add', '.');
  await git('-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-q', '-m', 'copy');
  return copy;
}

describe('switchboard prices check --write', () => {
  it('rewrites the differing shipped entries and adds a changeset the price changelog check accepts', async () => {
    const copy = await repositoryCopy();
    const before = JSON.parse(await readFile(join(copy, TABLE), 'utf8'));
    gateway.setFaults([
      {
        path: '/models',
        listing: {
          pricing: {
            'primary/primary-flash': { prompt: '0.0000005' },
            'primary/primary-v4-pro': {
              tiers: [
                {
                  above_input_tokens: 128_000,
                  input_cache_read: '0.000000088',
                  prompt: '0.00000264',
                  completion: '0.00000792',
                },
              ],
            },
          },
        },
      },
    ]);
    const result = await runCli(
      ['prices', 'check', '--gateway', gateway.url, '--write', '--json'],
      {},
      '',
      copy,
    );
    expect(result.code).toBe(1);
    const written = JSON.parse(result.stdout).written;
    expect(written.updated).toEqual(['primary-flash', 'primary-v4-pro']);
    const today = new Date().toISOString().slice(0, 10);
    const after = JSON.parse(await readFile(join(copy, TABLE), 'utf8'));
    const listingSource = `the gateway's listing at ${gateway.url}/models`;
    expect(after.models['primary-flash']).toEqual({
      cache_hit_per_m: 0.014,
      input_per_m: 0.5,
      output_per_m: 1.32,
      source: listingSource,
      checked_at: today,
    });
    expect(after.models['primary-v4-pro'].tiers).toEqual([
      { above_input_tokens: 128_000, cache_hit_per_m: 0.088, input_per_m: 2.64, output_per_m: 7.92 },
    ]);
    // Every other entry, and the table's own fields, untouched.
    expect(after.models['primary-v4-flash']).toEqual(before.models['primary-v4-flash']);
    expect({ ...after, models: null }).toEqual({ ...before, models: null });
    const changesets = (await readdir(join(copy, '.changeset'))).filter((name) => name.startsWith('prices-'));
    expect(changesets).toEqual([written.changeset.slice('.changeset/'.length)]);
    const changeset = await readFile(join(copy, written.changeset), 'utf8');
    expect(changeset).toMatch(/^---\n'@switchboard\/prices': patch\n---\n/);
    expect(changeset).toContain(
      `- \`primary-flash\`: cache hit 0.014, input 0.44, output 1.32 → cache hit 0.014, input 0.5, output 1.32 USD per million tokens (checked 2026-11-22 → ${today})`,
    );
    // The round-4 changelog check, run on the copy against its commit: every change listed word for word.
    const changelog = await run(process.execPath, [
      join(ROOT, 'scripts/check-price-changelog.mjs'),
      '--root',
      copy,
      '--base',
      'HEAD',
    ]);
    expect(changelog.stdout).toContain(
      'price changelog: ok, a pending @switchboard/prices changeset lists every change',
    );
  });

  it('refuses to run outside the repository root, writing nothing', async () => {
    gateway.setFaults([
      { path: '/models', listing: { pricing: { 'primary/primary-flash': { prompt: '0.0000005' } } } },
    ]);
    const empty = join(directory.path, 'empty');
    await mkdir(empty);
    await writeFile(join(empty, 'marker'), '');
    const result = await runCli(['prices', 'check', '--gateway', gateway.url, '--write'], {}, '', empty);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      "--write: no packages/prices/src/price-table.json here: run it at the repository's root",
    );
    expect(await readdir(empty)).toEqual(['marker']);
  });
});
