import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError } from './config-error.js';
import { loadConfig } from './load-config.js';
import { resolveChatEndpoint } from './resolve-chat-endpoint.js';

let folder: string;

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'switchboard-load-config-'));
});
afterAll(async () => {
  await rm(folder, { recursive: true, force: true });
});

async function file(name: string, text: string): Promise<string> {
  const path = join(folder, name);
  await writeFile(path, text);
  return path;
}

async function failureOf(promise: Promise<unknown>): Promise<ConfigError> {
  const error = await promise.then(
    () => null,
    (thrown: unknown) => thrown,
  );
  if (!ConfigError.isInstance(error)) throw new Error(`expected a ConfigError, got ${String(error)}`);
  return error;
}

describe('loadConfig', () => {
  describe('a TOML file', () => {
    it('reads [models] and [prices."id"] and checks them', async () => {
      const path = await file(
        'switchboard.toml',
        '[models]\nhunter = " primary-v4-pro "\nthinking = true\n\n[prices."lab-model"]\ncache_hit_per_m = 0.1\ninput_per_m = 1\noutput_per_m = 4\n',
      );
      expect(await loadConfig(path)).toEqual({
        models: { hunter: 'primary-v4-pro', thinking: true },
        prices: { 'lab-model': { cache_hit_per_m: 0.1, input_per_m: 1, output_per_m: 4 } },
      });
    });

    it('tells each warning with the file in front, and keeps the key', async () => {
      const path = await file('typo.toml', '[models]\nthinkng = true\n');
      const told: string[] = [];
      const config = await loadConfig(path, { onWarning: (text) => told.push(text) });
      expect(told).toEqual([`${path}: models.thinkng: unknown key, did you mean "thinking"?`]);
      expect(config).toEqual({ models: { thinkng: true } });
    });

    it('refuses the warnings with strict, naming the file and every key', async () => {
      const path = await file('strict.toml', '[models]\nthinkng = true\njuge = "x"\n');
      const error = await failureOf(loadConfig(path, { strict: true, onWarning: () => {} }));
      expect(error.message).toBe(
        `${path}: models.thinkng: unknown key, did you mean "thinking"?; models.juge: unknown key, did you mean "judge"?`,
      );
      expect(error.path).toBe('models.thinkng');
    });

    it('names the line and column of a syntax error', async () => {
      const path = await file('broken.toml', '[models]\nhunter = "primary-flash"\nthinking = tru\n');
      const error = await failureOf(loadConfig(path));
      expect(error.message).toMatch(new RegExp(`^${path.replaceAll('.', '\\.')}:3:12: not valid TOML: `));
      expect(error.message).not.toContain('\n');
    });

    it('names the bad value as parseConfig does, after the file', async () => {
      const path = await file('wrong.toml', '[models]\nthinking = "yes"\n');
      const error = await failureOf(loadConfig(path));
      expect(error.message).toBe(`${path}: models.thinking: expected boolean, got string`);
      expect(error.path).toBe('models.thinking');
    });
  });

  describe('check dates of [prices."id"] entries (issue 40.15)', () => {
    const entry = (checkedAt: string) =>
      `[prices."lab-model"]\ncache_hit_per_m = 0.1\ninput_per_m = 1\noutput_per_m = 4\nchecked_at = ${checkedAt}\n`;

    it.each([
      ['2026-02-30', '2026-03-02'],
      ['2026-04-31', '2026-05-01'],
      ['2025-02-29', '2025-03-01'],
      ['2026-02-30T10:00:00Z', '2026-03-02'],
    ])(
      'refuses checked_at = %s, a day no calendar has, naming the line, the field and the date',
      async (written, rolledTo) => {
        const path = await file('impossible.toml', `# checked by hand\n${entry(written)}`);
        const error = await failureOf(loadConfig(path));
        expect(error.message).toBe(
          `${path}:6:14: prices."lab-model".checked_at: no such date: ${written.slice(0, 10)} (a TOML parser reads it as ${rolledTo}); expected an ISO date, 'YYYY-MM-DD'`,
        );
        expect(error.path).toBe('prices."lab-model".checked_at');
      },
    );

    it('refuses a check date in the future, naming the field', async () => {
      const path = await file('future.toml', entry('2999-01-01'));
      const error = await failureOf(loadConfig(path));
      expect(error.message).toMatch(
        /: prices\."lab-model"\.checked_at: 2999-01-01 is in the future \(today is \d{4}-\d{2}-\d{2}, UTC\): a price cannot have been checked later than today/,
      );
      expect(error.path).toBe('prices."lab-model".checked_at');
    });

    it('reads a real leap day, and leaves dates in comments and strings alone', async () => {
      const path = await file(
        'leap.toml',
        `${entry('2024-02-29')}source = "not 2026-02-30" # nor 2026-02-31\n`,
      );
      const config = await loadConfig(path);
      expect((config.prices?.['lab-model']?.checked_at as Date | undefined)?.toISOString()).toBe(
        '2024-02-29',
      );
    });
  });

  describe('a JSON file (by its extension)', () => {
    it('reads it as JSON', async () => {
      const path = await file('config.JSON', '{"models": {"judge": "primary-v4-pro"}}');
      expect(await loadConfig(path)).toEqual({ models: { judge: 'primary-v4-pro' } });
    });

    it('names the line and column where it stops being JSON', async () => {
      const path = await file('broken.json', '{\n  "models": {\n    "thinking": tru\n  }\n}\n');
      const error = await failureOf(loadConfig(path));
      expect(error.message).toMatch(new RegExp(`^${path.replaceAll('.', '\\.')}:3:17: not valid JSON: `));
    });
  });

  describe('files that cannot be read', () => {
    it('says in words that a named file does not exist', async () => {
      const path = join(folder, 'switchboard.tml');
      const error = await failureOf(loadConfig(path));
      expect(error.message).toBe(`cannot read the config file: no such file: ${path}`);
    });

    it('says in words that a directory is not a file', async () => {
      const error = await failureOf(loadConfig(folder));
      expect(error.message).toBe(`cannot read the config file: is a directory, not a file: ${folder}`);
    });

    it.each(['/dev/urandom', '/dev/zero'])(
      'refuses %s at once, without reading it: not a regular file',
      async (device) => {
        const before = process.memoryUsage().rss;
        const error = await failureOf(loadConfig(device));
        expect(error.message).toBe(
          `cannot read the config file: not a regular file (a device, FIFO or socket): ${device}`,
        );
        expect(process.memoryUsage().rss - before).toBeLessThan(64 * 1024 * 1024);
      },
    );

    it('refuses a FIFO at once instead of waiting for a writer', async () => {
      const fifo = join(folder, 'config.fifo');
      execFileSync('mkfifo', [fifo]);
      // A read that waited for a writer would never end: the test's timeout would fail it.
      const error = await failureOf(loadConfig(fifo));
      expect(error.message).toBe(
        `cannot read the config file: not a regular file (a device, FIFO or socket): ${fifo}`,
      );
    });

    it('refuses a file over 1 MiB, and reads one just under it', async () => {
      const big = await file('big.toml', `# ${'x'.repeat(1024 * 1024)}\n`);
      expect((await failureOf(loadConfig(big))).message).toBe(
        `cannot read the config file: larger than 1 MiB: ${big}`,
      );
      const fits = await file('fits.toml', `# ${'x'.repeat(1024 * 1024 - 64)}\n[models]\nthinking = true\n`);
      expect(await loadConfig(fits)).toEqual({ models: { thinking: true } });
    });
  });

  describe('without a path', () => {
    const inFolder = async <T>(path: string, action: () => Promise<T>): Promise<T> => {
      const before = process.cwd();
      process.chdir(path);
      try {
        return await action();
      } finally {
        process.chdir(before);
      }
    };

    it('reads ./switchboard.toml when there is one', async () => {
      const project = join(folder, 'project');
      await mkdir(project, { recursive: true });
      await writeFile(join(project, 'switchboard.toml'), '[models]\nhunter = "primary-v4-pro"\n');
      expect(await inFolder(project, () => loadConfig())).toEqual({ models: { hunter: 'primary-v4-pro' } });
    });

    it('gives the empty configuration when there is none', async () => {
      const empty = join(folder, 'empty');
      await mkdir(empty, { recursive: true });
      expect(await inFolder(empty, () => loadConfig())).toEqual({});
    });
  });

  describe('the default warning sink', () => {
    it('is a SwitchboardConfigWarning of the process', async () => {
      const path = await file('default-sink.toml', '[models]\njudg = "x"\n');
      const warnings: Error[] = [];
      const listener = (warning: Error) => warnings.push(warning);
      process.on('warning', listener);
      try {
        await loadConfig(path);
        await new Promise((resolve) => setImmediate(resolve));
      } finally {
        process.off('warning', listener);
      }
      expect(warnings.map((warning) => [warning.name, warning.message])).toEqual([
        ['SwitchboardConfigWarning', `${path}: models.judg: unknown key, did you mean "judge"?`],
      ]);
    });
  });

  describe('then resolveChatEndpoint', () => {
    it('does not warn again about a loaded configuration', async () => {
      const path = await file('once.toml', '[models]\nthinkng = true\n');
      const told: string[] = [];
      const config = await loadConfig(path, { onWarning: (text) => told.push(text) });
      resolveChatEndpoint(config, {
        env: { PRIMARY_API_KEY: 'key' },
        onConfigWarning: (text) => told.push(text),
      });
      expect(told).toHaveLength(1);
    });
  });
});
