import { parse } from 'smol-toml';
import { describe, expect, it } from 'vitest';
import { ConfigError } from './config-error.js';
import { parseConfig, parseConfigWithWarnings } from './parse-config.js';

const entry = { cache_hit_per_m: 0.1, input_per_m: 1, output_per_m: 4 };
const tier = { above_input_tokens: 128_000, cache_hit_per_m: 0.2, input_per_m: 2, output_per_m: 8 };

function errorOf(input: unknown): ConfigError {
  try {
    parseConfig(input);
  } catch (error) {
    if (ConfigError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('parseConfig: price provenance, tiers and [pricing] (issue 33)', () => {
  it('reads tiers, checked_at, source and stale_after_days from TOML', () => {
    const toml = `
[pricing]
stale_after_days = 30

[prices."lab-model"]
cache_hit_per_m = 0.1
input_per_m = 1.0
output_per_m = 4.0
checked_at = 2026-11-20
source = "the lab's rate card"

[[prices."lab-model".tiers]]
above_input_tokens = 128_000
cache_hit_per_m = 0.2
input_per_m = 2.0
output_per_m = 8.0
`;
    const { config, warnings } = parseConfigWithWarnings(parse(toml));
    expect(warnings).toEqual([]);
    expect(config.pricing).toEqual({ stale_after_days: 30 });
    const lab = config.prices?.['lab-model'];
    expect(lab?.tiers).toEqual([tier]);
    expect(lab?.source).toBe("the lab's rate card");
    expect(lab?.checked_at).toBeInstanceOf(Date);
    expect((lab?.checked_at as Date | undefined)?.toISOString()).toBe('2026-11-20');
    expect(parseConfig(parse('[pricing]\nstale_after_days = inf\n')).pricing?.stale_after_days).toBe(
      Infinity,
    );
  });

  it.each([
    [
      { ...entry, tiers: [tier, { ...tier, above_input_tokens: 64_000 }] },
      'prices.m.tiers[1].above_input_tokens: expected tiers in ascending order of above_input_tokens, each threshold once (64000 after 128000)',
    ],
    [
      { ...entry, tiers: [{ ...tier, above_input_tokens: 1.5 }] },
      'prices.m.tiers[0].above_input_tokens: expected a whole number of tokens >= 0',
    ],
    [
      { ...entry, tiers: [{ ...tier, above_input_tokens: -1 }] },
      'prices.m.tiers[0].above_input_tokens: expected a whole number of tokens >= 0',
    ],
    [
      { ...entry, tiers: [{ ...tier, input_per_m: Number.POSITIVE_INFINITY }] },
      'prices.m.tiers[0].input_per_m: expected a finite number, got inf',
    ],
    [
      { ...entry, tiers: [{ above_input_tokens: 5, input_per_m: 1, output_per_m: 1 }] },
      'prices.m.tiers[0].cache_hit_per_m: missing (expected number)',
    ],
    [{ ...entry, tiers: 'long' }, 'prices.m.tiers: expected array, got string'],
    [
      { ...entry, checked_at: '2026-02-30' },
      "prices.m.checked_at: expected an ISO date ('YYYY-MM-DD', or a TOML date such as 2026-11-20)",
    ],
    [
      { ...entry, checked_at: 'last week' },
      "prices.m.checked_at: expected an ISO date ('YYYY-MM-DD', or a TOML date such as 2026-11-20)",
    ],
    [{ ...entry, source: ' ' }, 'prices.m.source: expected a non-empty string'],
  ])('refuses the entry %j, naming the path', (value, message) => {
    expect(errorOf({ prices: { m: value } }).message).toBe(message);
  });

  it.each([
    ['2999-01-01', '2999-01-01'],
    [new Date('2999-01-01T00:00:00Z'), '2999-01-01'],
    [parse('d = 2999-01-01').d, '2999-01-01'],
  ])(
    'refuses a checked_at in the future (%j), naming the field and the date (issue 40.15)',
    (value, date) => {
      expect(errorOf({ prices: { m: { ...entry, checked_at: value } } }).message).toMatch(
        new RegExp(
          `^prices\\.m\\.checked_at: ${date} is in the future \\(today is \\d{4}-\\d{2}-\\d{2}, UTC\\): a price cannot have been checked later than today`,
        ),
      );
    },
  );

  it('takes a checked_at of today and of tomorrow (UTC; zones ahead of it are there already)', () => {
    for (const days of [0, 1]) {
      const date = new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);
      expect(parseConfig({ prices: { m: { ...entry, checked_at: date } } }).prices?.m?.checked_at).toBe(date);
    }
  });

  it.each([
    ['', 'prices."": expected a model id, got an empty one'],
    ['  ', 'prices."  ": expected a model id, got a blank one'],
  ])('refuses the model id %j, naming the path (issue 40.17)', (model, message) => {
    const error = errorOf({ prices: { [model]: entry } });
    expect(error.message).toBe(message);
    expect(error.path).toBe(`prices.${JSON.stringify(model)}`);
  });

  it.each([
    [-1, 'pricing.stale_after_days: expected a number of days >= 0 (inf: never stale)'],
    ['90', 'pricing.stale_after_days: expected a number of days >= 0 (inf: never stale)'],
  ])('refuses stale_after_days = %j', (value, message) => {
    expect(errorOf({ pricing: { stale_after_days: value } }).message).toBe(message);
  });

  it('warns of unknown keys in a tier and in [pricing], and of a source without checked_at', () => {
    const { warnings } = parseConfigWithWarnings({
      pricing: { stale_after_day: 3 },
      prices: { m: { ...entry, source: 'rate card', tiers: [{ ...tier, above_input_token: 1 }] } },
    });
    expect(warnings.map((warning) => warning.message)).toEqual([
      'pricing.stale_after_day: unknown key, did you mean "stale_after_days"?',
      'prices.m.tiers[0].above_input_token: unknown key, did you mean "above_input_tokens"?',
      "prices.m.source: a source without checked_at, so the price's age is unknown; add checked_at = YYYY-MM-DD",
    ]);
  });
});

describe('a configuration price that shadows a shipped one', () => {
  it('warns, naming the shipped figures and their checked date, the entry marked as a replaced price', () => {
    const { warnings } = parseConfigWithWarnings({ prices: { 'primary-v4-pro': entry, 'lab-model': entry } });
    expect(warnings).toEqual([
      {
        path: 'prices."primary-v4-pro"',
        message:
          'prices."primary-v4-pro": replaces the shipped price of primary-v4-pro (cache hit / input / output 0.044 / 1.32 / 3.96 USD per million tokens, checked 2026-11-22); calls on it are priced from this entry',
        suggestion: null,
        replacedPrice: 'primary-v4-pro',
      },
    ]);
  });

  it('says when the entry only repeats the shipped prices, and names the alias', () => {
    const same = { cache_hit_per_m: 0.014, input_per_m: 0.44, output_per_m: 1.32 };
    const { warnings } = parseConfigWithWarnings({
      prices: { 'primary-flash': same, 'primary-chat': entry },
    });
    expect(warnings.map((warning) => warning.message)).toEqual([
      'prices."primary-flash": replaces the shipped price of primary-flash (cache hit / input / output 0.014 / 0.44 / 1.32 USD per million tokens, checked 2026-11-22); the same prices, so it only hides later price updates: remove it unless you mean to pin them',
      'prices."primary-chat": replaces the shipped price the alias primary-chat is billed at (primary-flash\'s) (cache hit / input / output 0.014 / 0.44 / 1.32 USD per million tokens, checked 2026-11-22); calls on it are priced from this entry',
    ]);
  });

  it('is not an error with strict (a negotiated price is no mistake), and not added to a refused configuration', () => {
    expect(parseConfig({ prices: { 'primary-flash': entry } }, { strict: true })).toEqual({
      prices: { 'primary-flash': entry },
    });
    expect(errorOf({ prices: { 'primary-flash': { ...entry, input_per_m: -1 } } }).message).toBe(
      'prices."primary-flash".input_per_m: expected a finite number >= 0',
    );
  });
});
