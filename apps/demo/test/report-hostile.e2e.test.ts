import { execFileSync, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runCli } from './run-cli.js';
import { tempDirectory } from './temp-directory.js';

const directory = tempDirectory('switchboard-hostile-');
const CLI_PATH = fileURLToPath(new URL('../dist/cli.js', import.meta.url));

const endpoint = { provider: 'primary', baseUrl: 'https://api.primary.example', thinking: false };

function line(fields: Record<string, unknown> = {}): string {
  return JSON.stringify({
    v: 1,
    model: 'primary-flash',
    usage: { prompt_tokens: 100, completion_tokens: 10 },
    costUsd: 0.25,
    at: '2026-11-23T09:00:10.000Z',
    durationMs: 120,
    attempts: 1,
    role: 'judge',
    error: null,
    endpoint,
    outcome: 'ok',
    degradation: false,
    ...fields,
  });
}

describe('switchboard report on lines it cannot trust', () => {
  it('skips and names each bad field, counts only valid lines, and never crashes', async () => {
    const bad = [
      line({ role: 42 }),
      line({ role: { name: 'judge' } }),
      line({ endpoint: { provider: 'primary', baseUrl: 7 } }),
      line({ costUsd: 1e308 }),
      line({ costUsd: -1 }),
      line({ at: '1970-01-01T00:00:00Z' }),
      line({ at: '+275760-09-13T00:00:00.000Z' }),
      line({ usage: { prompt_tokens: 'many' } }),
      line({ costNanoUsd: 1.5 }),
    ];
    const file = await directory.file(
      'bad.jsonl',
      `${line()}\n${bad.join('\n')}\n${line({ costNanoUsd: 250_000_001 })}\n`,
    );
    const run = await runCli(['report', file, '--json']);
    expect(run.code).toBe(0);
    const figures = JSON.parse(run.stdout);
    expect(figures.totals).toMatchObject({ calls: 2, costNanoUsd: 500_000_001, cost: '0.500000001' });
    expect(figures.skipped).toEqual({ count: 9, lines: [2, 3, 4, 5, 6, 7, 8, 9, 10] });
    expect(run.stderr).toContain(`${file}:2: role: expected a string or null, got the number 42, skipped`);
    expect(run.stderr).toContain(`${file}:4: endpoint.baseUrl: expected a string, got the number 7, skipped`);
    expect(run.stderr).toContain(`${file}:5: costUsd: 1e+308 is more than the most a call may have`);
    expect(run.stderr).toContain(`${file}:6: costUsd: expected a finite number >= 0, got -1, skipped`);
    expect(run.stderr).toContain(`${file}:7: at: "1970-01-01T00:00:00Z" is outside the years 2000 to 2099`);
    expect(run.stderr).toContain(`${file}:8: at: expected an ISO time with a zone`);
    expect(run.stderr).not.toMatch(/a bug|NaN|Infinity|∞/);
  });

  it('reports 200,000 distinct roles and a 1970 line among 2026 lines without overflowing the stack', async () => {
    const lines: string[] = [];
    for (let index = 0; index < 200_000; index++)
      lines.push(line({ role: `role-${index}`, costUsd: 0.000001 }));
    lines.push(line({ at: '2000-01-01T00:00:00Z' }));
    const file = await directory.file('roles.jsonl', `${lines.join('\n')}\n`);
    const run = await runCli(['report', file]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('200,001 calls');
    expect(run.stdout).toMatch(/… and [\d,]+ more \(see --json\)/);
    const json = JSON.parse((await runCli(['report', file, '--json'])).stdout);
    expect(Object.keys(json.byRole)).toHaveLength(1001);
    expect(json.byRole['(others)'].calls).toBe(200_001 - 1000);
    expect(json.spend.buckets.length).toBeLessThanOrEqual(60);
  }, 60_000);

  it('skips a line over the 1 MiB cap without holding it, and caps the warnings with how many more', async () => {
    const huge = line({ role: 'x'.repeat(2 * 1024 * 1024) });
    const garbage = Array.from({ length: 50 }, (_, index) => `garbage ${index}`);
    const file = await directory.file('huge.jsonl', `${huge}\n${garbage.join('\n')}\n${line()}\n`);
    const run = await runCli(['report', file, '--json']);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout).totals.calls).toBe(1);
    expect(run.stderr).toContain(`${file}:1: ${huge.length} bytes, over the 1048576-byte line cap, skipped`);
    const warnings = run.stderr.trim().split('\n');
    expect(warnings).toHaveLength(21);
    expect(warnings[20]).toBe('switchboard: warning: … and 31 more lines skipped');
  });

  it('reads - as stdin, for report and cost', async () => {
    const input = `${line()}\n${line({ role: 'detector', costUsd: 1 })}\n`;
    const report = await runCli(['report', '-', '--json'], {}, input);
    expect(report.code).toBe(0);
    expect(JSON.parse(report.stdout).totals).toMatchObject({ calls: 2, cost: '1.250000000' });
    const cost = await runCli(['cost', '-', '--json'], {}, input);
    expect(cost.code).toBe(0);
    expect(JSON.parse(cost.stdout).calls).toBe(2);
  });

  it('reads a FIFO as it is written, to its end', async () => {
    const fifo = join(directory.path, 'journal.fifo');
    execFileSync('mkfifo', [fifo]);
    const reading = runCli(['report', fifo, '--json']);
    const writer = spawn('sh', [
      '-c',
      `for i in 1 2 3; do printf '%s\\n' '${line()}'; sleep 0.2; done > '${fifo}'`,
    ]);
    await new Promise((resolve) => writer.on('exit', resolve));
    const run = await reading;
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout).totals).toMatchObject({ calls: 3, cost: '0.750000000' });
  });

  it('escapes a newline inside a role, so it cannot forge a table row', async () => {
    const file = await directory.file('forged.jsonl', `${line({ role: 'judge\n│ forged │ 99 │' })}\n`);
    const run = await runCli(['report', file]);
    expect(run.stdout).toContain('judge\\n│ forged │ 99 │');
    expect(run.stdout.split('\n').some((text) => text.startsWith('│ forged'))).toBe(false);
  });

  it.each([['report'], ['cost']])(
    '%s reads /dev/zero in flat memory (under 200 MiB while it has read 512 MiB of it)',
    async (command) => {
      const child = spawn(process.execPath, [CLI_PATH, command, '/dev/zero'], {
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      const READ = 512 * 1024 * 1024;
      const proc = (file: string) => {
        try {
          return readFileSync(`/proc/${child.pid}/${file}`, 'utf8');
        } catch {
          return ''; // not started yet, or ended
        }
      };
      let peak = 0;
      let read = 0;
      // Until it has read more than twice the bound (an event, however slow the machine), its memory
      // sampled all along; a reader that kept what it read would pass the bound on the way.
      const deadline = performance.now() + 90_000;
      while (read < READ && child.exitCode === null && performance.now() < deadline) {
        const rss = Number(/VmRSS:\s+(\d+)/.exec(proc('status'))?.[1] ?? 0) * 1024;
        peak = Math.max(peak, rss);
        read = Math.max(read, Number(/rchar:\s+(\d+)/.exec(proc('io'))?.[1] ?? 0));
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      const ended = new Promise((resolve) => child.on('exit', resolve));
      child.kill('SIGKILL');
      await ended;
      expect(read).toBeGreaterThanOrEqual(READ);
      expect(peak).toBeGreaterThan(0);
      expect(peak).toBeLessThan(200 * 1024 * 1024);
    },
    120_000,
  );
});

describe('switchboard report --since and --until', () => {
  it.each([['2026-02-30'], ['2026-11-23T24:00'], ['2026-11-23T09:00+25:00'], ['2026-13-01']])(
    'exits 2 for the impossible time %s',
    async (since) => {
      const run = await runCli(['report', '-', '--since', since], {}, `${line()}\n`);
      expect(run.code).toBe(2);
      expect(run.stderr).toMatch(
        /^switchboard: --since: expected an ISO time .*: no such date or time\n$|got "2026-13-01"/,
      );
    },
  );

  it('reads a time without a zone as UTC, like a date', async () => {
    const input = `${line({ at: '2026-11-23T09:00:00.000Z' })}\n${line({ at: '2026-11-23T10:00:00.000Z' })}\n`;
    const run = await runCli(
      ['report', '-', '--json', '--since', '2026-11-23T09:30'],
      { TZ: 'America/New_York' },
      input,
    );
    expect(JSON.parse(run.stdout).totals.calls).toBe(1);
    const help = await runCli(['report', '--help']);
    expect(help.stdout).toMatch(/without a zone it\s+is\s+UTC/);
  });
});

describe('switchboard demo --journal on a device that fails every write', () => {
  it('does not crash: it says how many lines were not written, and the table still prints', async () => {
    const run = await runCli(['demo', '--journal', '/dev/full']);
    expect(run.code).toBe(0);
    expect(run.stderr).toMatch(
      /switchboard: warning: journal \/dev\/full: \d+ lines were not written .*ENOSPC/,
    );
    expect(run.stdout).toContain('/dev/full (not a file: no report read back)');
    expect(run.stdout).toMatch(/total cost: \$[\d.]+ over \d+ calls/);
  });
});

describe('switchboard demo --journal -', () => {
  it('journals every call to stdout, as whole lines before the report; refused with --json', async () => {
    const run = await runCli(['demo', '--journal', '-']);
    expect(run.code).toBe(0);
    const lines = run.stdout.split('\n').filter((text) => text.startsWith('{"v":2,'));
    expect(lines.length).toBeGreaterThan(5);
    for (const text of lines) expect(JSON.parse(text)).toMatchObject({ v: 2, model: expect.any(String) });
    expect(run.stdout).toContain('Journal: - (not a file: no report read back)');
    // A test's stdout is a socket, which no path opens: the error says to use -.
    const device = await runCli(['demo', '--journal', '/dev/stdout']);
    expect(device.code).toBe(2);
    expect(device.stderr).toMatch(
      /cannot open the journal for writing: failed \(ENXIO\): \/dev\/stdout \(a socket cannot be opened by path: --journal - writes to stdout\)\n$/,
    );
    const json = await runCli(['demo', '--journal', '-', '--json']);
    expect(json.code).toBe(2);
    expect(json.stderr).toBe(
      'switchboard: --journal -: stdout carries the --json document; journal to a file instead\n',
    );
  });
});

describe('switchboard report --html', () => {
  it('writes one self-contained page whose totals are the JSON report’s', async () => {
    const file = await directory.file('html.jsonl', `${line()}\n${line({ role: 'a<b>&"c', costUsd: 1 })}\n`);
    const html = join(directory.path, 'report.html');
    const run = await runCli(['report', file, '--html', html]);
    expect(run.code).toBe(0);
    const page = await readFile(html, 'utf8');
    expect(page).toContain('data-figure="totals.cost">$1.250000000<');
    expect(page).toContain('a&lt;b&gt;&amp;&quot;c');
    expect(page).not.toMatch(/<script|<link|@import|url\(|src=/i);
    const missing = await runCli(['report', file, '--html', join(directory.path, 'no-such', 'x.html')]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/^switchboard: --html: cannot write the HTML report: no such file/);
  });
});
