import { checkPrices, checkProvenance, fail, SNAKE_KEYS } from './check-input.js';
import type { CompiledEntry, CompiledTariff } from './compile-entry.js';
import { maxPrices } from './price-tiers.js';
import type { Prices } from './prices.js';

/** A dated tariff as the configuration writes it: `[[prices."model-id".tariffs]]`. */
export interface PriceConfigTariff {
  /** The first instant it is in force: a TOML date (00:00 UTC) or date-time, or an ISO string. */
  readonly effective_from: string | Date;
  /** USD per million tokens, each a finite number >= 0 (not needed on a cancelled change). */
  readonly cache_hit_per_m?: number;
  readonly input_per_m?: number;
  readonly output_per_m?: number;
  /** Prompt-size tiers, as an entry's. */
  readonly tiers?: readonly {
    readonly above_input_tokens: number;
    readonly cache_hit_per_m: number;
    readonly input_per_m: number;
    readonly output_per_m: number;
  }[];
  /** Where the change was announced (or called off). */
  readonly source?: string;
  /** When it was last checked: an ISO date. Checked before `effective_from`, it is still an announcement then. */
  readonly checked_at?: string | Date;
  /** The change was called off: kept for the record, never priced; it cancels a change of the same `effective_from`. */
  readonly cancelled?: boolean;
}

/** A dated change of a model's price that takes effect later than the time asked about. */
export interface AnnouncedPrice {
  /** The first instant it is in force, as an ISO time (`2027-01-01T00:00:00.000Z`). */
  readonly effectiveFrom: string;
  /** The prices from then on, or null for a cancelled change. */
  readonly prices: Prices | null;
  /** Where it was announced, or null. */
  readonly source: string | null;
  /** When it was last checked, or null. */
  readonly checkedAt: string | null;
  /** Called off: never priced. */
  readonly cancelled: boolean;
}

/** A configuration tariff, checked: `from` in epoch ms. */
export interface ConfigTariff extends AnnouncedPrice {
  readonly from: number;
}

function instantOf(value: unknown, field: string): number {
  const text = value instanceof Date ? value.toISOString() : value;
  // A bare date is 00:00 UTC; a date-time must say its offset (else it depends on the machine's zone).
  const ok =
    typeof text === 'string' &&
    /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2}))?$/i.test(text);
  const time = ok ? Date.parse(text as string) : Number.NaN;
  if (Number.isNaN(time)) fail(field, "an ISO date ('2027-01-01', 00:00 UTC) or date-time with its offset");
  return time;
}

/**
 * The `tariffs` of a configuration entry, checked and in order of `effective_from`; a
 * cancelled change replaces a change of the same instant (which is then not priced).
 */
export function readConfigTariffs(value: unknown, field: string): ConfigTariff[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) fail(field, 'an array of tariffs');
  const byInstant = new Map<number, ConfigTariff>();
  for (const tariff of value as Record<string, unknown>[]) {
    const at = `${field}[]`;
    if (tariff === null || typeof tariff !== 'object') fail(at, 'a tariff table');
    const from = instantOf(tariff.effective_from, `${at}.effective_from`);
    const cancelled = tariff.cancelled === true;
    if (tariff.cancelled !== undefined && typeof tariff.cancelled !== 'boolean')
      fail(`${at}.cancelled`, 'a boolean');
    const provenance = checkProvenance(tariff, at, SNAKE_KEYS, '');
    const effectiveFrom = new Date(from).toISOString();
    const earlier = byInstant.get(from);
    if (earlier !== undefined && earlier.cancelled === cancelled)
      fail(`${at}.effective_from`, `another instant than an earlier tariff's (${effectiveFrom} twice)`);
    if (earlier?.cancelled === true) continue;
    byInstant.set(from, {
      from,
      effectiveFrom,
      prices: cancelled ? null : checkPrices(tariff, at, SNAKE_KEYS),
      source: typeof tariff.source === 'string' ? tariff.source.trim() : null,
      checkedAt: provenance?.checkedAt ?? null,
      cancelled,
    });
  }
  return [...byInstant.values()].sort((a, b) => a.from - b.from);
}

function flatTariff(
  entry: string,
  from: number,
  until: number,
  prices: Prices,
  dated: boolean,
): CompiledTariff {
  return {
    entry,
    from,
    until,
    base: { prices, ref: dated ? Object.freeze({ entry, band: null }) : null },
    bands: [],
    timeZone: null,
    holidays: null,
    cover: [0, 0],
    max: maxPrices([prices]),
  };
}

/**
 * A configuration entry with dated tariffs, compiled: its own prices until the first
 * change that is not cancelled, then each change until the next (records name a change by
 * its `effective_from`; the entry's own prices stay flat, `tariff: null`).
 */
export function compileConfigHistory(base: Prices, tariffs: readonly ConfigTariff[]): CompiledEntry {
  const changes = tariffs.filter((tariff) => tariff.prices !== null);
  if (changes.length === 0) return { prices: base, ref: null };
  const starts = [-Infinity, ...changes.map((tariff) => tariff.from)];
  return starts.map((from, index) => {
    const until = starts[index + 1] ?? Infinity;
    const change = changes[index - 1];
    return change === undefined
      ? flatTariff('base', from, until, base, false)
      : flatTariff(change.effectiveFrom, from, until, change.prices as Prices, true);
  });
}
