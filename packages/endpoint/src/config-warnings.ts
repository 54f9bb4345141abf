import { nearestName } from '@switchboard/adapter';
import { PRICE_TABLE, provenanceOf } from '@switchboard/prices';
import { pathText } from './config-path.js';
import { isPlainObject } from './is-plain-object.js';

/** Something in a configuration that is probably a mistake, though it does not stop it being used. */
export interface ConfigWarning {
  /** Where: `models.thinkng`, `thinking` (a models key at the top level), `prices."x".input_per_mm`. */
  readonly path: string;
  /** The whole warning, e.g. `models.thinkng: unknown key, did you mean "thinking"?`. */
  readonly message: string;
  /** The nearest known key, or null when none is near. */
  readonly suggestion: string | null;
  /**
   * Only on the notice that a `[prices."id"]` entry replaces a shipped price: that entry's id
   * (trimmed). Not a mistake, so a caller may say it where the price is used rather than at once.
   */
  readonly replacedPrice?: string;
}

/** The keys `parseConfig` reads under `[models]`. */
const MODELS_KEYS: readonly string[] = ['chat_base_url', 'chat_api_key_env', 'thinking', 'hunter', 'judge'];
const PRICE_KEYS: readonly string[] = [
  'cache_hit_per_m',
  'input_per_m',
  'output_per_m',
  'tiers',
  'checked_at',
  'source',
  'tariffs',
];
// A dated change has an entry's keys (but no changes of its own), its date, and may be called off.
const TARIFF_KEYS: readonly string[] = [
  'effective_from',
  ...PRICE_KEYS.filter((key) => key !== 'tariffs'),
  'cancelled',
];
const TIER_KEYS: readonly string[] = ['above_input_tokens', 'cache_hit_per_m', 'input_per_m', 'output_per_m'];
const PRICING_KEYS: readonly string[] = ['stale_after_days'];
const SECTIONS: readonly string[] = ['models', 'prices', 'pricing', 'telemetry'];
const TELEMETRY_KEYS: readonly string[] = ['provider_name'];

function unknownKeys(
  table: unknown,
  known: readonly string[],
  path: readonly PropertyKey[],
): ConfigWarning[] {
  if (!isPlainObject(table)) return [];
  return Object.keys(table)
    .filter((key) => !known.includes(key))
    .map((key) => {
      const at = pathText([...path, key]);
      const suggestion = nearestName(key, known);
      const hint = suggestion === null ? `known: ${known.join(', ')}` : `did you mean "${suggestion}"?`;
      return { path: at, message: `${at}: unknown key, ${hint}`, suggestion };
    });
}

// A models key (or one near it) with no [models] header above it: TOML puts it at the top level.
function strayTopLevelKeys(input: Record<string, unknown>): ConfigWarning[] {
  return Object.keys(input).flatMap((key) => {
    if (SECTIONS.includes(key)) return [];
    const at = pathText([key]);
    const asModelsKey = MODELS_KEYS.includes(key) ? key : nearestName(key, MODELS_KEYS);
    if (asModelsKey !== null) {
      return [
        {
          path: at,
          message: `${at}: a models key outside [models]; did you mean models.${asModelsKey}?`,
          suggestion: `models.${asModelsKey}`,
        },
      ];
    }
    const section = nearestName(key, SECTIONS);
    if (section === null) return [];
    return [{ path: at, message: `${at}: unknown section, did you mean "${section}"?`, suggestion: section }];
  });
}

/**
 * The warnings of a configuration that passed `parseConfig`'s type checks: unknown
 * keys inside `models`, `telemetry` and each `prices` entry (with the nearest known key), and
 * top-level keys that look like models keys or section names. Other sections pass silently.
 */
export function configWarnings(input: Record<string, unknown>): ConfigWarning[] {
  const prices = isPlainObject(input.prices) ? input.prices : {};
  return [
    ...strayTopLevelKeys(input),
    ...unknownKeys(input.models, MODELS_KEYS, ['models']),
    ...unknownKeys(input.pricing, PRICING_KEYS, ['pricing']),
    ...unknownKeys(input.telemetry, TELEMETRY_KEYS, ['telemetry']),
    ...Object.keys(prices).flatMap((model) => [
      ...unknownKeys(prices[model], PRICE_KEYS, ['prices', model]),
      ...tierKeys(prices[model], model),
      ...undatedSource(prices[model], model),
    ]),
  ];
}

/**
 * The notices of a configuration that passed its checks: each `[prices."id"]` entry that
 * replaces a shipped price (or the price the `primary-chat` alias is billed at), with the
 * shipped figures and their checked date. Not mistakes: never errors, even with `strict`.
 */
export function shadowedPriceWarnings(config: Record<string, unknown>): ConfigWarning[] {
  const prices = isPlainObject(config.prices) ? config.prices : {};
  return Object.keys(prices).flatMap((model) => shadowed(prices[model], model));
}

function tierKeys(entry: unknown, model: string): ConfigWarning[] {
  const tiers = isPlainObject(entry) ? entry.tiers : undefined;
  const tariffs = isPlainObject(entry) ? entry.tariffs : undefined;
  return [
    ...(Array.isArray(tiers) ? tiers : []).flatMap((tier, index) =>
      unknownKeys(tier, TIER_KEYS, ['prices', model, 'tiers', index]),
    ),
    ...(Array.isArray(tariffs) ? tariffs : []).flatMap((tariff, index) =>
      unknownKeys(tariff, TARIFF_KEYS, ['prices', model, 'tariffs', index]),
    ),
  ];
}

const PRICE_FIELDS = [
  ['cache_hit_per_m', 'cacheHitPerM'],
  ['input_per_m', 'inputPerM'],
  ['output_per_m', 'outputPerM'],
] as const;

// A config entry replaces the shipped one for that id: say so, with the shipped figures and their date,
// so a price fixed in a later release of @switchboard/prices never goes unseen behind an old override.
function shadowed(entry: unknown, model: string): ConfigWarning[] {
  const id = model.trim();
  const shippedId = PRICE_TABLE.has(id) ? id : id === 'primary-chat' ? 'primary-flash' : null;
  const shipped = shippedId === null ? undefined : PRICE_TABLE.get(shippedId);
  if (shipped === undefined || shippedId === null) return [];
  const at = pathText(['prices', model]);
  const checked = provenanceOf(shippedId)?.checkedAt;
  const figures = PRICE_FIELDS.map(([, key]) => shipped[key]).join(' / ');
  const what =
    id === shippedId
      ? `replaces the shipped price of ${id}`
      : `replaces the shipped price the alias ${id} is billed at (${shippedId}'s)`;
  const same =
    isPlainObject(entry) &&
    entry.tiers === undefined &&
    entry.tariffs === undefined &&
    shipped.tiers === undefined &&
    PRICE_FIELDS.every(([snake, key]) => entry[snake] === shipped[key]);
  const outcome = same
    ? 'the same prices, so it only hides later price updates: remove it unless you mean to pin them'
    : 'calls on it are priced from this entry';
  return [
    {
      path: at,
      message: `${at}: ${what} (cache hit / input / output ${figures} USD per million tokens${checked === undefined ? '' : `, checked ${checked}`}); ${outcome}`,
      suggestion: null,
      replacedPrice: id,
    },
  ];
}

// A source without a checked date cannot say how old the price is.
function undatedSource(entry: unknown, model: string): ConfigWarning[] {
  if (!isPlainObject(entry) || typeof entry.source !== 'string' || entry.source.trim() === '') return [];
  if (entry.checked_at !== undefined) return [];
  const at = pathText(['prices', model, 'source']);
  return [
    {
      path: at,
      message: `${at}: a source without checked_at, so the price's age is unknown; add checked_at = YYYY-MM-DD`,
      suggestion: 'checked_at',
    },
  ];
}
