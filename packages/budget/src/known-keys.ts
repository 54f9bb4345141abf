// Unknown option keys are refused: in plain JavaScript a typo (`limitUSD`) would
// otherwise remove a protection without a word. The configuration parser of
// @switchboard/endpoint does the same for switchboard.toml (its `nearestKey`); this
// package cannot depend on that one, and its names are camelCase, so the comparison
// here ignores case on both sides.

/**
 * Throws a TypeError naming the first own key of `options` that is not in `known`,
 * with the nearest known one: ``scope: unknown option `limitUSD`; did you mean `limitUsd`?``.
 */
export function checkKnownKeys(options: object, known: readonly string[], where: string): void {
  for (const key of Object.keys(options)) {
    if (known.includes(key)) continue;
    const nearest = nearestKnownKey(key, known);
    const hint =
      nearest === null
        ? `known: ${known.map((name) => `\`${name}\``).join(', ')}`
        : `did you mean \`${nearest}\`?`;
    throw new TypeError(`${where}: unknown option \`${printable(key)}\`; ${hint}`);
  }
}

/**
 * The known key nearest to `key`, ignoring case: at most 2 edits away (1 for keys of 4
 * characters or fewer), else one that begins with it or that it begins with (`limit`,
 * `limitUsd`); null when none is near.
 */
function nearestKnownKey(key: string, known: readonly string[]): string | null {
  const lowered = key.toLowerCase();
  let best: string | null = null;
  let bestDistance = lowered.length <= 4 ? 1 : 2;
  for (const candidate of known) {
    const d = distance(lowered, candidate.toLowerCase());
    if (d <= bestDistance && (best === null || d < bestDistance)) {
      best = candidate;
      bestDistance = d;
    }
  }
  if (best !== null || lowered.length < 4) return best;
  return (
    known.find((candidate) => {
      const other = candidate.toLowerCase();
      return other.startsWith(lowered) || lowered.startsWith(other);
    }) ?? null
  );
}

/** Edit distance (Levenshtein), capped: keys may be long or hostile. */
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

/** A key as it can be shown: at most 64 characters, control characters escaped. */
function printable(key: string): string {
  const shown = key.length > 64 ? `${key.slice(0, 64)}…` : key;
  return JSON.stringify(shown).slice(1, -1);
}
