import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from './load-config.js';
import { parseConfig, parseConfigWithWarnings } from './parse-config.js';
import { resolveChatEndpoint } from './resolve-chat-endpoint.js';
import { isAdapterResolution } from './resolved-chat-endpoint.js';

let folder = '';
beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'switchboard-tariffs-'));
});
afterAll(() => rm(folder, { recursive: true, force: true }));

const LAB = `[prices."lab-model"]
cache_hit_per_m = 0.1
input_per_m = 1
output_per_m = 4
checked_at = 2026-11-20

[[prices."lab-model".tariffs]]
effective_from = 2027-01-01
cache_hit_per_m = 0.15
input_per_m = 1.5
output_per_m = 6
source = "the lab's notice of 2026-11-15"
checked_at = 2026-11-20
`;

async function load(text: string, name = 'switchboard.toml') {
  const path = join(folder, name);
  await writeFile(path, text);
  return loadConfig(path);
}

describe('[[prices."id".tariffs]]: dated changes in the configuration', () => {
  it('reads a TOML date as 00:00 UTC and prices calls after it at the change', async () => {
    const config = await load(LAB);
    const resolved = resolveChatEndpoint(config, { env: { PRIMARY_API_KEY: 'key' } });
    if (!isAdapterResolution(resolved)) return expect.fail('expected an adapter resolution');
    const priceBook = resolved.endpoint.priceBook;
    if (priceBook === null) return expect.fail('expected a price book');
    expect(priceBook.priceOf('lab-model', { at: '2026-12-31T23:00:00Z' })?.prices.inputPerM).toBe(1);
    expect(priceBook.priceOf('lab-model', { at: '2027-01-01T00:00:00Z' })?.prices.inputPerM).toBe(1.5);
    expect(priceBook.announcedOf('lab-model', { at: '2026-12-01T00:00:00Z' })[0]?.source).toBe(
      "the lab's notice of 2026-11-15",
    );
  });

  it('cancelled = true on a change of the same date calls it off, without prices', async () => {
    const config = await load(`${LAB}
[[prices."lab-model".tariffs]]
effective_from = 2027-01-01
cancelled = true
source = "the lab's notice of 2026-12-10"
`);
    const book = resolveChatEndpoint(config, { env: { PRIMARY_API_KEY: 'key' } });
    if (!isAdapterResolution(book)) return expect.fail('expected an adapter resolution');
    expect(
      book.endpoint.priceBook?.priceOf('lab-model', { at: '2027-02-01T00:00:00Z' })?.prices.inputPerM,
    ).toBe(1);
  });

  it('refuses a change without prices, a date-time without its offset, and names the field', async () => {
    const entry = { cache_hit_per_m: 0, input_per_m: 1, output_per_m: 1 };
    expect(() =>
      parseConfig({
        prices: { m: { ...entry, tariffs: [{ effective_from: '2027-01-01', input_per_m: 1 }] } },
      }),
    ).toThrow(
      /prices\.m\.tariffs\[0\]\.cache_hit_per_m: expected a finite number >= 0 \(or cancelled = true\)/,
    );
    await expect(
      load(
        `${LAB.replace('effective_from = 2027-01-01', 'effective_from = 2027-01-01T00:00:00')}`,
        'local.toml',
      ),
    ).rejects.toThrow(
      /prices\."lab-model"\.tariffs\[0\]\.effective_from: expected a TOML date \(00:00 UTC\) or date-time with its offset/,
    );
    expect(
      parseConfig({
        prices: { m: { ...entry, tariffs: [{ effective_from: '2027-01-01T09:00:00+08:00', ...entry }] } },
      }).prices?.m?.tariffs,
    ).toHaveLength(1);
  });

  it('warns of an unknown key inside a tariff, with the nearest known one', () => {
    const entry = { cache_hit_per_m: 0, input_per_m: 1, output_per_m: 1 };
    const { warnings } = parseConfigWithWarnings({
      prices: { m: { ...entry, tariffs: [{ effective_from: '2027-01-01', ...entry, canceled: true }] } },
    });
    expect(warnings.map((warning) => warning.message)).toContain(
      'prices.m.tariffs[0].canceled: unknown key, did you mean "cancelled"?',
    );
  });
});
