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
}

/** The keys `parseConfig` reads under `[models]`. */
const MODELS_KEYS: readonly string[] = ['chat_base_url', 'chat_api_key_env', 'thinking', 'hunter', 'judge'];
const PRICE_KEYS: readonly string[] = ['cache_hit_per_m', 'input_per_m', 'output_per_m'];
const SECTIONS: readonly string[] = ['models', 'prices', 'telemetry'];
const TELEMETRY_KEYS: readonly string[] = ['provider_name'];

// Edit distance, capped: keys come from an untrusted file and may be long.
function distance(a: string, b: string): number {
  if (Math.abs(a.length - b.length) > 2 || a.length > 64) return Number.POSITIVE_INFINITY;
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i += 1) {
    const current = [i];
    for (let j = 1; j <= b.length; j += 1) {
      const substitution = (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1);
      current.push(Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, substitution));
    }
    previous = current;
  }
  return previous[b.length] ?? Number.POSITIVE_INFINITY;
}

/** The known key nearest to `key` (case-insensitive; at most 2 edits, 1 for short keys), or null. */
export function nearestKey(key: string, known: readonly string[]): string | null {
  const lowered = key.toLowerCase();
  let best: string | null = null;
  let bestDistance = lowered.length <= 4 ? 1 : 2;
  for (const candidate of known) {
    const d = distance(lowered, candidate);
    if (d <= bestDistance && (best === null || d < bestDistance)) {
      best = candidate;
      bestDistance = d;
    }
  }
  return best;
}

function unknownKeys(table: unknown, known: readonly string[], path: readonly string[]): ConfigWarning[] {
  if (!isPlainObject(table)) return [];
  return Object.keys(table)
    .filter((key) => !known.includes(key))
    .map((key) => {
      const at = pathText([...path, key]);
      const suggestion = nearestKey(key, known);
      const hint = suggestion === null ? `known: ${known.join(', ')}` : `did you mean "${suggestion}"?`;
      return { path: at, message: `${at}: unknown key, ${hint}`, suggestion };
    });
}

// A models key (or one near it) with no [models] header above it: TOML puts it at the top level.
function strayTopLevelKeys(input: Record<string, unknown>): ConfigWarning[] {
  return Object.keys(input).flatMap((key) => {
    if (SECTIONS.includes(key)) return [];
    const at = pathText([key]);
    const asModelsKey = MODELS_KEYS.includes(key) ? key : nearestKey(key, MODELS_KEYS);
    if (asModelsKey !== null) {
      return [
        {
          path: at,
          message: `${at}: a models key outside [models]; did you mean models.${asModelsKey}?`,
          suggestion: `models.${asModelsKey}`,
        },
      ];
    }
    const section = nearestKey(key, SECTIONS);
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
    ...unknownKeys(input.telemetry, TELEMETRY_KEYS, ['telemetry']),
    ...Object.keys(prices).flatMap((model) => unknownKeys(prices[model], PRICE_KEYS, ['prices', model])),
  ];
}
