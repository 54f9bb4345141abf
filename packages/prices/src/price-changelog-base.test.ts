import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

// scripts/check-price-changelog.mjs run as CI runs it, on small repositories of the
// workspace's shape: what it compares the price table with when no --base is given.
const SCRIPT = fileURLToPath(new URL('../../../scripts/check-price-changelog.mjs', import.meta.url));
const TABLE = 'packages/prices/src/price-table.json';
const MANIFEST = 'packages/prices/package.json';

const folders: string[] = [];
afterAll(() => {
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
});

function git(cwd: string, ...args: string[]): string {
  const run = spawnSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@localhost', ...args], {
    cwd,
    encoding: 'utf8',
  });
  if (run.status !== 0) throw new Error(`git ${args.join(' ')}: ${run.stderr}`);
  return run.stdout.trim();
}

function table(input: number) {
  const row = { cache_hit_per_m: 0.014, input_per_m: input, output_per_m: 1.32 };
  return `${JSON.stringify({ models: { 'm-1': { ...row, source: 'the list', checked_at: '2026-11-22' } } }, null, 2)}\n`;
}

function write(repo: string, path: string, text: string): void {
  mkdirSync(join(repo, path, '..'), { recursive: true });
  writeFileSync(join(repo, path), text);
}

function commit(repo: string, message: string, files: Record<string, string>): string {
  for (const [path, text] of Object.entries(files)) write(repo, path, text);
  git(repo, 'add', '-A');
  git(repo, 'commit', '-q', '-m', message);
  return git(repo, 'rev-parse', 'HEAD');
}

const manifest = (version: string) => `${JSON.stringify({ name: '@switchboard/prices', version })}\n`;

/**
 * A repository whose history is: the package at 0.0.0 with input 0.44; the release of
 * 0.1.0 (a version bump, changesets consumed); a price change to input 0.5, committed
 * without a changeset; an unrelated commit on top.
 */
function repository(): { repo: string; release: string } {
  const repo = mkdtempSync(join(tmpdir(), 'switchboard-price-changelog-'));
  folders.push(repo);
  git(repo, 'init', '-q', '-b', 'main');
  commit(repo, 'start', {
    [MANIFEST]: manifest('0.0.0'),
    [TABLE]: table(0.44),
    '.changeset/README.md': 'changesets\n',
    '.changeset/first.md': "---\n'@switchboard/prices': minor\n---\n\nFirst.\n",
  });
  rmSync(join(repo, '.changeset/first.md'));
  const release = commit(repo, 'release 0.1.0', { [MANIFEST]: manifest('0.1.0') });
  commit(repo, 'a new price, no changeset', { [TABLE]: table(0.5) });
  commit(repo, 'something else', { 'README.md': 'hello\n' });
  return { repo, release };
}

function check(repo: string, ...args: string[]) {
  const run = spawnSync(process.execPath, [SCRIPT, '--root', repo, ...args], { encoding: 'utf8' });
  return { code: run.status, out: `${run.stdout}${run.stderr}` };
}

const LINE =
  '- `m-1`: cache hit 0.014, input 0.44, output 1.32 → cache hit 0.014, input 0.5, output 1.32 USD per million tokens (checked 2026-11-22 → 2026-11-22)';

describe('check-price-changelog without --base: compared with the last release of @switchboard/prices', () => {
  it('fails on a clean clone for a price change committed since the release without a changeset', () => {
    const { repo, release } = repository();
    const run = check(repo);
    expect(run.code).toBe(1);
    expect(run.out).toContain(
      `since ${release.slice(0, 7)}, the commit that set @switchboard/prices to 0.1.0`,
    );
    expect(run.out).toContain(`FAIL, no pending changeset releasing @switchboard/prices lists these lines`);
    expect(run.out).toContain(LINE);
    // Compared with HEAD, as before, the clean clone had nothing to check.
    expect(check(repo, '--base', 'HEAD')).toEqual({
      code: 0,
      out: 'price changelog: no price change since HEAD\n',
    });
  });

  it('passes once a pending changeset lists the change; --write writes it', () => {
    const { repo } = repository();
    const written = check(repo, '--write');
    expect(written.code).toBe(0);
    const added = readdirSync(join(repo, '.changeset')).filter((name) => name.startsWith('prices-'));
    expect(added).toHaveLength(1);
    expect(readFileSync(join(repo, '.changeset', added[0] as string), 'utf8')).toContain(LINE);
    expect(check(repo)).toMatchObject({ code: 0 });
  });

  it('finds nothing to list once the change is released', () => {
    const { repo } = repository();
    commit(repo, 'release 0.1.1', { [MANIFEST]: manifest('0.1.1') });
    expect(check(repo).out).toMatch(
      /^price changelog: no price change since [0-9a-f]{7}, the commit that set @switchboard\/prices to 0\.1\.1$/m,
    );
  });

  it('prefers the release tag when the clone has it', () => {
    const { repo } = repository();
    // Tagged after the price change: the change counts as released.
    git(repo, 'tag', '@switchboard/prices@0.1.0');
    expect(check(repo)).toEqual({
      code: 0,
      out: 'price changelog: no price change since the tag @switchboard/prices@0.1.0\n',
    });
  });

  it('refuses a shallow clone, which cannot say where the release was, unless --base is given', () => {
    const { repo } = repository();
    const shallow = mkdtempSync(join(tmpdir(), 'switchboard-price-changelog-shallow-'));
    folders.push(shallow);
    git(shallow, 'clone', '-q', '--depth', '1', `file://${repo}`, '.');
    const run = check(shallow);
    expect(run.code).toBe(2);
    expect(run.out).toContain('a shallow clone cannot tell which commit released @switchboard/prices');
    expect(check(shallow, '--base', 'HEAD').code).toBe(0);
  });

  it('checks an uncommitted change too, and refuses a base that is not a commit', () => {
    const { repo } = repository();
    write(repo, TABLE, table(0.6));
    const run = check(repo, '--base', 'HEAD');
    expect(run.code).toBe(1);
    expect(run.out).toContain('input 0.5, output 1.32 → cache hit 0.014, input 0.6');
    expect(check(repo, '--base', 'no-such-ref')).toEqual({
      code: 2,
      out: 'check-price-changelog: --base no-such-ref: not a commit of this repository\n',
    });
  });
});
