// The keys `parseConfig` reads under `models` (spec 2.4). A local stand-in, worded as
// @switchboard/endpoint's parseConfigWithWarnings, which replaces this file once merged.
const MODELS_KEYS = ['chat_base_url', 'chat_api_key_env', 'thinking', 'hunter', 'judge'] as const;

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1);
      current.push(Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, substitution));
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}

function nearestKey(key: string): string | null {
  let best: string | null = null;
  let bestDistance = Math.max(2, Math.floor(key.length / 3)) + 1;
  for (const known of MODELS_KEYS) {
    const distance = editDistance(key.toLowerCase(), known);
    if (distance < bestDistance) [best, bestDistance] = [known, distance];
  }
  return best;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * What in a configuration is probably a typo: an unknown key inside `models`
 * (with the nearest known key), or a `models` key written outside `[models]`.
 * Other sections are the caller's and pass without a word.
 */
export function configWarnings(input: unknown): string[] {
  if (!isPlainObject(input)) return [];
  const warnings: string[] = [];
  for (const key of Object.keys(input)) {
    if ((MODELS_KEYS as readonly string[]).includes(key)) {
      warnings.push(`${key}: a models key outside [models]; did you mean models.${key}?`);
    }
  }
  const models = input.models;
  if (!isPlainObject(models)) return warnings;
  for (const key of Object.keys(models)) {
    if ((MODELS_KEYS as readonly string[]).includes(key)) continue;
    const nearest = nearestKey(key);
    const hint = nearest === null ? `known: ${MODELS_KEYS.join(', ')}` : `did you mean "${nearest}"?`;
    warnings.push(`models.${key}: unknown key, ${hint}`);
  }
  return warnings;
}
