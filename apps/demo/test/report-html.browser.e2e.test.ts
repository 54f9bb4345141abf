import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { openInChromium } from './chromium-page.js';
import { runCli } from './run-cli.js';
import { tempDirectory } from './temp-directory.js';

const directory = tempDirectory('switchboard-html-');
// Kept after the run (gitignored), e.g. to attach to a CI run.
const ARTEFACTS = fileURLToPath(new URL('../test-artifacts/', import.meta.url));

const ROLES = ['detector', 'judge', 'proposer', 'triage'];
const ERRORS = [
  null,
  null,
  null,
  { kind: 'rate_limited', status: 429, degradation: false },
  { kind: 'model_rejected', status: 400, degradation: true },
];

function journal(lines: number): string {
  const start = Date.parse('2026-11-23T06:00:00.000Z');
  const out: string[] = [];
  for (let index = 0; index < lines; index++) {
    const error = ERRORS[index % ERRORS.length] ?? null;
    out.push(
      JSON.stringify({
        v: 1,
        model: index % 3 === 0 ? 'primary-v4-pro' : 'primary-flash',
        usage: error ? null : { prompt_tokens: 1200, prompt_cache_hit_tokens: 800, completion_tokens: 300 },
        costUsd: error ? null : 0.0001 + (index % 7) * 0.000013,
        pricedAs: null,
        at: new Date(start + index * 37_000).toISOString(),
        durationMs: 100,
        attempts: error ? 3 : 1,
        role: ROLES[index % ROLES.length],
        error,
        endpoint: { provider: 'primary', baseUrl: 'https://api.primary.example', thinking: false },
      }),
    );
  }
  return `${out.join('\n')}\n`;
}

const FIGURES = `Object.fromEntries([...document.querySelectorAll('[data-figure]')].map((node) => [node.dataset.figure, node.textContent]))`;

describe('switchboard report --html in headless Chromium', () => {
  it('shows the totals of report --json, fetches nothing from the network, and draws its charts', async () => {
    const file = await directory.file('run.jsonl', journal(2_000));
    const html = join(directory.path, 'report.html');
    const run = await runCli(['report', file, '--html', html, '--json']);
    expect(run.code).toBe(0);
    const figures = JSON.parse(run.stdout);
    const page = await openInChromium(
      pathToFileURL(html).href,
      `({ figures: ${FIGURES}, charts: document.querySelectorAll('svg').length, bars: document.querySelectorAll('svg rect').length, scripts: document.scripts.length })`,
    );
    mkdirSync(ARTEFACTS, { recursive: true });
    writeFileSync(join(ARTEFACTS, 'report.png'), page.screenshot);
    const shown = page.value as {
      figures: Record<string, string>;
      charts: number;
      bars: number;
      scripts: number;
    };
    const usd = (decimal: string) => `$${decimal.replace(/\B(?=(\d{3})+(?!\d)\.)/g, ',')}`;
    expect(shown.figures['totals.cost']).toBe(usd(figures.totals.cost));
    expect(shown.figures['totals.calls']).toBe(figures.totals.calls.toLocaleString('en-US'));
    expect(shown.figures['totals.attempts']).toBe(figures.totals.attempts.toLocaleString('en-US'));
    expect(shown.figures['cache.saved']).toBe(usd(figures.cache.saved));
    expect(shown.figures['totals.unpricedCalls']).toBe(String(figures.totals.unpricedCalls));
    expect(shown.figures['totals.refusedCalls']).toBe(String(figures.totals.refusedCalls));
    expect(shown.charts).toBe(5);
    expect(shown.bars).toBeGreaterThan(50);
    expect(shown.scripts).toBe(0);
    // The page itself, and nothing else: no font, script, style or image from anywhere.
    expect(page.requests).toEqual([pathToFileURL(html).href]);
    expect(page.screenshot.subarray(1, 4).toString()).toBe('PNG');
    expect(page.screenshot.length).toBeGreaterThan(10_000);
  }, 60_000);
});
