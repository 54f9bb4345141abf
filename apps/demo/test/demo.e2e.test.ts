import { costOf, priceOf } from '@switchboard/prices';
import { describe, expect, it } from 'vitest';
import { runCli } from './run-cli.js';

interface Row {
  role: string;
  model: string;
  calls: number;
  cacheHit: number;
  cacheMiss: number;
  output: number;
  usd: number;
}

function tableRows(stdout: string): Row[] {
  const rows: Row[] = [];
  for (const line of stdout.split('\n')) {
    const cells = line
      .split('│')
      .map((cell) => cell.trim())
      .filter((cell) => cell !== '');
    // The total row has no model: its cell is blank, so it has one cell fewer.
    if (cells.length < 6 || !cells.at(-1)?.startsWith('$')) continue;
    if (cells.length === 6) cells.splice(1, 0, '');
    const [role, model, calls, cacheHit, cacheMiss, output, usd] = cells as [
      string,
      string,
      string,
      string,
      string,
      string,
      string,
    ];
    const count = (text: string) => Number(text.replaceAll(',', ''));
    rows.push({
      role,
      model,
      calls: count(calls),
      cacheHit: count(cacheHit),
      cacheMiss: count(cacheMiss),
      output: count(output),
      usd: count(usd.slice(1)),
    });
  }
  return rows;
}

describe('switchboard demo', () => {
  it('exits 0, prints the endpoint record and a cost table that adds up', async () => {
    const run = await runCli(['demo']);
    expect(run.stderr).not.toMatch(/unexpected error/);
    expect(run.code).toBe(0);

    // The record is printed as indented JSON whose last line is a lone '}'.
    const start = run.stdout.indexOf('{\n');
    const end = run.stdout.indexOf('\n}\n', start) + 2;
    const record = JSON.parse(run.stdout.slice(start, end)) as Record<string, unknown>;
    expect(record).toMatchObject({ provider: 'primary', thinking: true });
    expect(String(record.baseUrl)).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(Object.keys(record).sort()).toEqual(['baseUrl', 'prices', 'provider', 'thinking']);
    // Right after the record, the output says why the demo turns thinking on (it is off by default).
    expect(run.stdout.slice(end)).toMatch(
      /^\nnote: thinking is off by default; the demo turns it on \(models\.thinking = true\) so the detector has reasoning to replay/,
    );

    const rows = tableRows(run.stdout);
    const total = rows.find((row) => row.role === 'total');
    const roles = rows.filter((row) => row.role !== 'total');
    expect(roles.map((row) => row.role)).toEqual([
      'detector',
      'classifier',
      'judge',
      'proposer',
      'rejected-model',
      'triage (1 refused)',
    ]);
    expect(total?.usd).toBeGreaterThan(0);
    // Each call is priced by the model it was made with: the classifier's by primary-v4-pro (issue 11).
    expect(roles.map((row) => row.model)).toEqual([
      'primary-flash',
      'primary-v4-pro',
      'primary-flash',
      'primary-flash',
      'primary-v4.1-flash',
      'primary-flash',
    ]);
    // Each row is its model's price applied to its own tokens, to the printed nine decimals.
    for (const row of roles) {
      const expected = costOf(priceOf(row.model), {
        prompt_cache_hit_tokens: row.cacheHit,
        prompt_cache_miss_tokens: row.cacheMiss,
        completion_tokens: row.output,
      });
      expect(row.usd).toBeCloseTo(expected ?? Number.NaN, 9);
    }
    // The total is the sum of the rows, column by column.
    const sum = (pick: (row: Row) => number) =>
      roles.reduce((accumulator, row) => accumulator + pick(row), 0);
    expect(total?.calls).toBe(sum((row) => row.calls));
    expect(total?.cacheHit).toBe(sum((row) => row.cacheHit));
    expect(total?.cacheMiss).toBe(sum((row) => row.cacheMiss));
    expect(total?.output).toBe(sum((row) => row.output));
    expect(total?.usd).toBeCloseTo(
      sum((row) => row.usd),
      9,
    );
    expect(run.stdout).toMatch(new RegExp(`total cost: \\$${total?.usd.toFixed(9)} over \\d+ calls\n`));
  });

  it('shows progress and each role doing its job', async () => {
    const run = await runCli(['demo']);
    expect(run.stderr).toMatch(/\[1\/6\] detector/);
    expect(run.stderr).toMatch(
      /detector: tool call grep_repository -> tool result -> answer \(reasoning replayed, \d+ chars, streamed in [1-9]\d* deltas\)/,
    );
    expect(run.stderr).toMatch(/classifier: mean logprob -\d+\.\d+, confidence \d+\.\d%/);
    expect(run.stderr).toMatch(/judge: 2 requests: an empty JSON reply, then one retry -> valid JSON/);
    expect(run.stderr).toMatch(/proposer: bounded\(12\): finish_reason length/);
    expect(run.stdout).toMatch(
      /degradation recorded \(not a verdict\): model 'primary-v4\.1-flash' rejected; supported: primary-flash, primary-v4-pro/,
    );
  });

  it('refuses the triage call that would cross its budget before it is sent, in the output and the table', async () => {
    const run = await runCli(['demo']);
    expect(run.code).toBe(0);
    expect(run.stderr).toMatch(
      /triage: budget \$0\.000500000: (\d+) calls sent, call \d+ refused before it was sent \(the emulator received 0 requests for it\)/,
    );
    expect(run.stdout).toMatch(
      /refused before it was sent \(triage, budget \$0\.000500000; the emulator received 0 requests for it\): budget scope "demo\/triage" refused a call of primary-flash: limit \$0\.000500, spent \$0\.\d{6}, reserved \$0\.000000 by calls in flight, this call needs up to \$0\.\d{6}\n/,
    );
    const sent = Number(/triage: budget \S+: (\d+) calls sent/.exec(run.stderr)?.[1]);
    const triage = tableRows(run.stdout).find((row) => row.role === 'triage (1 refused)');
    // The table counts the calls that were sent, not the refused one, and they stay within the budget.
    expect(triage?.calls).toBe(sent);
    expect(sent).toBeGreaterThan(0);
    expect(triage?.usd).toBeGreaterThan(0);
    expect(triage?.usd).toBeLessThanOrEqual(0.0005);

    // The JSON form carries the emulator's own count of requests for the refused call.
    const json = JSON.parse((await runCli(['demo', '--json'])).stdout) as {
      roles: { role: string; calls: number; budget?: Record<string, unknown> }[];
    };
    const role = json.roles.find((entry) => entry.role === 'triage');
    expect(role?.budget).toMatchObject({ limitUsd: 0.0005, refused: 1, requestsForRefused: 0 });
    expect(role?.budget?.refusal).toMatch(/^budget scope "demo\/triage" refused a call/);
    expect(role?.calls).toBe(sent);
  });

  it("ignores the user's own keys: the demo resolves its own emulator endpoint", async () => {
    const run = await runCli(['demo'], {
      PRIMARY_API_KEY: 'user-key',
      PRIMARY_BASE_URL: 'http://127.0.0.1:9',
    });
    expect(run.code).toBe(0);
    expect(run.stdout).not.toContain('127.0.0.1:9"');
  });
});
