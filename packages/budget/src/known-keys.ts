// Unknown option keys are refused: in plain JavaScript a typo (`limitUSD`) would
// otherwise remove a protection without a word. The configuration parser of
// @switchboard/endpoint does the same for switchboard.toml; both suggest the nearest
// known name with the adapter's `nearestName` (case ignored on both sides).

import { nearestName } from '@switchboard/adapter';

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
 * The known key nearest to `key`, ignoring case: `nearestName` of the adapter (at most
 * 2 edits away, 1 for keys of 4 characters or fewer), else one that begins with it or
 * that it begins with (`limit`, `limitUsd`); null when none is near.
 */
function nearestKnownKey(key: string, known: readonly string[]): string | null {
  const best = nearestName(key, known);
  const lowered = key.toLowerCase();
  if (best !== null || lowered.length < 4) return best;
  return (
    known.find((candidate) => {
      const other = candidate.toLowerCase();
      return other.startsWith(lowered) || lowered.startsWith(other);
    }) ?? null
  );
}

/** A key as it can be shown: at most 64 characters, control characters escaped. */
function printable(key: string): string {
  const shown = key.length > 64 ? `${key.slice(0, 64)}…` : key;
  return JSON.stringify(shown).slice(1, -1);
}
