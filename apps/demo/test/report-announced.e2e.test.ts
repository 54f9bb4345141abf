import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { handMadeLine } from './hand-made-line.js';
import { runCli } from './run-cli.js';
import { tempDirectory } from './temp-directory.js';

// Issue 45: a dated change whose date is still to come is shown as announced in the report's prices
// table too (text, --json and --html), for the models the report's calls used; a cancelled one is not.

const directory = tempDirectory('switchboard-report-announced-');

/** A journal line of `model`, priced from the configuration at 1 / 4 USD per million tokens. */
const line = (model: string) =>
  handMadeLine({
    model,
    pricedAs: model,
    costUsd: 0.00003,
    costNanoUsd: 30_000,
    priceCheckedAt: '2026-11-20',
  });

const CONFIG = `[pricing]
stale_after_days = inf

[prices."lab-model"]
cache_hit_per_m = 0.1
input_per_m = 1
output_per_m = 4
checked_at = "2026-11-20"

[[prices."lab-model".tariffs]]
effective_from = 2999-01-01
cache_hit_per_m = 0.15
input_per_m = 1.5
output_per_m = 6
source = "the lab's notice of 2026-11-15"

[[prices."lab-model".tariffs]]
effective_from = 2998-06-01
cancelled = true
source = "called off"

[prices."quiet-model"]
cache_hit_per_m = 0.1
input_per_m = 1
output_per_m = 4
checked_at = "2026-11-20"

[[prices."quiet-model".tariffs]]
effective_from = 2999-01-01
cache_hit_per_m = 0.2
input_per_m = 2
output_per_m = 8
source = "a model the journal never called"
`;

describe('switchboard report: announced price changes', () => {
  it('names each change to come for a model the calls used, in text, --json and --html; not a cancelled one, not another model', async () => {
    const config = await directory.file('lab.toml', CONFIG);
    const journal = await directory.file('run.jsonl', `${line('lab-model')}\n${line('lab-model')}\n`);
    const text = await runCli(['report', journal, '--config', config]);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain(
      `announced: lab-model changes price from 2999-01-01T00:00:00.000Z (the lab's notice of 2026-11-15)`,
    );
    expect(text.stdout).not.toContain('called off');
    expect(text.stdout).not.toContain('quiet-model');

    const json = JSON.parse((await runCli(['report', journal, '--json', '--config', config])).stdout);
    expect(json.announced).toEqual([
      {
        model: 'lab-model',
        effectiveFrom: '2999-01-01T00:00:00.000Z',
        source: "the lab's notice of 2026-11-15",
      },
    ]);

    const page = join(directory.path, 'report.html');
    expect((await runCli(['report', journal, '--html', page, '--config', config])).code).toBe(0);
    const html = await readFile(page, 'utf8');
    expect(html).toContain('data-figure="announced" data-model="lab-model"');
    expect(html).toContain('the lab&#39;s notice of 2026-11-15');
  });

  it('says nothing of announced changes when none is to come', async () => {
    const journal = await directory.file('plain.jsonl', `${line('primary-flash')}\n`);
    const json = JSON.parse((await runCli(['report', journal, '--json'])).stdout);
    expect(json.announced).toEqual([]);
    expect((await runCli(['report', journal])).stdout).not.toContain('announced:');
  });
});
