import { describe, expect, it } from 'vitest';
import { runCliIntoClosedPipe } from './run-cli.js';
import { tempDirectory } from './temp-directory.js';

const directory = tempDirectory('switchboard-closed-pipe-');

/** A journal of `count` calls, each of its own role: `report --json` of it is far larger than a pipe holds. */
function journal(count: number): string {
  const endpoint = { provider: 'primary', baseUrl: 'https://api.primary.example', thinking: false };
  return Array.from({ length: count }, (_, index) =>
    JSON.stringify({
      v: 1,
      model: 'primary-flash',
      usage: { prompt_tokens: 100, completion_tokens: 10 },
      costUsd: 0.000001,
      at: `2026-11-23T09:${String(index % 60).padStart(2, '0')}:00.000Z`,
      attempts: 1,
      role: `role-${index}`,
      error: null,
      endpoint,
    }),
  ).join('\n');
}

describe('switchboard writing into a pipe its reader closed (| head)', () => {
  it('exits quietly: no EPIPE stack trace on stderr, exit 0', async () => {
    const file = await directory.file('many-roles.jsonl', `${journal(1_500)}\n`);
    const run = await runCliIntoClosedPipe(['report', file, '--json']);
    expect(run.stdout.length).toBeGreaterThan(0);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
  });
});
