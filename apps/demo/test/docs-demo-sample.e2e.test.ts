import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runCli } from './run-cli.js';

const DOCS_PAGE = fileURLToPath(new URL('../../../docs/journal-and-report.md', import.meta.url));
/** The first line of the demo's output the page shows: from the cost table to the end. */
const SAMPLE_START = "Cost per role (each call at its own model's prices, USD)";

/** The page's ```text block that shows the demo's output. */
async function documentedSample(): Promise<string> {
  const page = await readFile(DOCS_PAGE, 'utf8');
  const start = page.indexOf(`\`\`\`text\n${SAMPLE_START}\n`);
  expect(start, `docs/journal-and-report.md has no text block starting with ${SAMPLE_START}`).toBeGreaterThan(
    -1,
  );
  const body = page.slice(page.indexOf('\n', start) + 1);
  return body.slice(0, body.indexOf('```\n'));
}

/**
 * What differs from one demo run to the next, made the same: the emulator's port, the call
 * times, the journal's temporary folder, the spend chart's minutes (a run may straddle two),
 * and the line on the prices' age (it changes with today's date, not with the demo).
 */
function normalized(text: string): string {
  return text
    .replace(/127\.0\.0\.1:\d+/g, '127.0.0.1:PORT')
    .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/g, 'TIME')
    .replace(/^Journal: \S+ \(/m, 'Journal: PATH (')
    .replace(/^ {2}(?:none priced|stale: .*priced) from an entry checked more than .*$/m, '  PRICE AGE')
    .split('\n')
    .filter((line) => !/^ {2}\d\d:\d\d \|/.test(line))
    .join('\n');
}

describe('docs/journal-and-report.md', () => {
  it('shows the output of a real demo run: the same calls, tokens, costs and tables (regenerate it when they change)', async () => {
    const run = await runCli(['demo']);
    expect(run.code).toBe(0);
    const output = run.stdout.slice(run.stdout.indexOf(SAMPLE_START));
    expect(normalized(await documentedSample())).toBe(normalized(output));
  });
});
